// `ssum solve` on several rows: telling them from one row, and printing their answer.
#include "rows_input.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <vector>

#include "ssum/memory.hpp"
#include "ssum/version.hpp"

namespace ssum::cli {
namespace {

bool ends_with_dat(const std::string& path) {
  if (path.size() < 4) return false;
  std::string tail = path.substr(path.size() - 4);
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".dat";
}

// The file's first bytes, by ssum::holds_rows (as read_instance tells standard input): read
// until they tell, which the rule bounds. A file that cannot be read is left to the one-row
// reader, whose error names it.
bool head_holds_rows(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head;
  constexpr std::size_t chunk = std::size_t(1) << 16;
  for (;;) {
    const std::size_t had = head.size();
    head.resize(had + chunk);
    in.read(head.data() + had, std::streamsize(chunk));
    head.resize(had + std::size_t(in.gcount()));
    const bool whole = !in;
    if (const std::optional<bool> rows = holds_rows(head, whole)) return *rows;
    if (whole) return false;
  }
}

nlohmann::json number_json(int128 v) {
  if (v >= INT64_MIN && v <= INT64_MAX) return static_cast<std::int64_t>(v);
  return to_string(v);  // beyond 64 bits: a decimal string, as accepted on input
}

}  // namespace

bool is_rows_input(const std::string& path, const std::string& format, bool csv) {
  if (format == "rows") return true;
  if (format != "auto" || path == "-") return false;
  return ends_with_dat(path) || (!csv && head_holds_rows(path));
}

std::string rows_answer(const rows_problem& p, const rows_solution& r, bool json, double wall, double time_limit,
                        const std::optional<mpi_report>& mpi) {
  const solution& s = r.answer;
  const bool unknown = s.status == status::unknown;
  std::ostringstream out;
  if (json) {
    nlohmann::json j;
    j["version"] = version;
    j["status"] = unknown ? "unknown" : s.feasible ? "feasible" : "infeasible";
    j["feasible"] = unknown ? nlohmann::json(nullptr) : nlohmann::json(s.feasible);
    if (s.feasible) j["subset"] = s.subset;
    j["rows"] = p.rows.size();
    j["n"] = p.columns();
    nlohmann::json targets = nlohmann::json::array();
    for (const int128 t : p.targets) targets.push_back(number_json(t));
    j["targets"] = targets;
    j["method"] = r.method;
    j["rows_folded"] = r.rows_folded;
    j["encoding_bits"] = r.encoding_bits;
    if (r.method == "fold and check") j["subsets_checked"] = r.checked;
    if (r.lattice_seconds > 0) j["lattice_seconds"] = r.lattice_seconds;
    j["algorithm"] = s.algorithm;
    j["backend"] = s.backend;
    j["threads"] = s.threads;
    j["plan"] = {{"algorithm", s.plan.algorithm}, {"backend", s.plan.backend}, {"reason", s.plan.reason}};
    j["reductions"] = s.reductions;
    if (s.count) j["count"] = s.count->to_string();
    j["seconds"] = {{"search", s.seconds.search}, {"total", s.seconds.total}, {"wall", wall}};
    const nlohmann::json planned = unknown && s.planned_bytes == 0 ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(s.planned_bytes);
    j["memory"] = {{"planned_bytes", planned}, {"peak_rss_bytes", peak_resident_bytes()}};
    if (mpi) {
      j["ranks"] = mpi->ranks;
      j["shared"] = mpi->shared;
      j["rank_seconds"] = mpi->rank_seconds;
    }
    out << j.dump() << '\n';
    return out.str();
  }
  const std::string rows = std::to_string(p.rows.size()) + (p.rows.size() == 1 ? " row" : " rows");
  if (unknown) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", time_limit);
    out << "unknown: the time limit of " << limit << " s ran out before " << s.algorithm << " on " << s.backend
        << " found columns meeting all " << rows << " or proved that none exist\n";
    return out.str();
  }
  if (s.feasible) {
    out << "feasible: " << s.subset.size() << " of " << p.columns() << " columns meet all " << rows << '\n';
    out << "subset (0-based indices):";
    for (const std::size_t j : s.subset) out << ' ' << j;
    out << "\nx:";
    std::vector<char> x(p.columns(), '0');
    for (const std::size_t j : s.subset) x[j] = '1';
    for (const char c : x) out << ' ' << c;
    out << '\n';
  } else {
    out << "infeasible: no subset of the " << p.columns() << " columns meets all " << rows << '\n';
  }
  if (s.count) out << "solutions: " << s.count->to_string() << " subsets meet all " << rows << '\n';
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3g", s.seconds.total);
  const std::string how = r.method == "fold" ? "the rows folded into one sum of " + std::to_string(r.encoding_bits) + " bits"
                          : r.method == "fold and check"
                              ? std::to_string(r.rows_folded) + " rows folded, " + std::to_string(r.checked) +
                                    " subsets checked on the others"
                              : r.method;
  const char* proof = s.feasible ? "every row re-verified" : r.method == "bounds" ? "the bounds prove it"
                                                                                : "the search was exhaustive";
  out << s.algorithm << " on " << s.backend << " (" << how << ") in " << seconds << " s; " << proof << '\n';
  if (mpi) out << "MPI: " << mpi->note << '\n';
  return out.str();
}

}  // namespace ssum::cli
