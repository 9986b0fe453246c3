// `ssum solve --explain` (explain_output.hpp).
#include "explain_output.hpp"

#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ssum/memory.hpp"

namespace ssum::cli {
namespace {

std::string seconds_cell(double s) {
  if (s < 0 || !(s < 1e300)) return "-";
  char text[32];
  if (s >= 1e7) std::snprintf(text, sizeof text, "%.1e s", s);
  else std::snprintf(text, sizeof text, "%.3g s", s);
  return text;
}

std::string bytes_cell(double b) {
  if (b <= 0) return "-";
  return b >= 1.8e19 ? "> 2^64 B" : format_bytes(b);
}

// "takes", "no room" or "cannot", and "exact" or "finds".
std::string verdict(const plan_candidate& c) {
  return std::string(!c.takes ? "cannot" : !c.fits ? "no room" : "takes") + (c.exact ? "" : ", finds only");
}

}  // namespace

int print_explain(const plan_table& t, bool json) {
  if (json) {
    nlohmann::json out;
    out["question"] = t.question;
    out["items"] = t.items;
    out["threads"] = t.threads;
    out["host_room"] = t.host_room;
    nlohmann::json rows = nlohmann::json::array();
    for (const plan_candidate& c : t.candidates) {
      rows.push_back({{"algorithm", c.algorithm},
                      {"backend", c.backend},
                      {"takes", c.takes},
                      {"fits", c.fits},
                      {"exact", c.exact},
                      {"bytes", c.bytes},
                      {"seconds", c.seconds < 0 ? nlohmann::json(nullptr) : nlohmann::json(c.seconds)},
                      {"role", c.role},
                      {"why", c.why}});
    }
    out["candidates"] = rows;
    if (t.chosen.algorithm.empty()) {
      out["plan"] = nullptr;
      out["refusal"] = t.refusal;
    } else {
      out["plan"] = {{"algorithm", t.chosen.algorithm}, {"backend", t.chosen.backend}, {"reason", t.chosen.reason}};
    }
    std::cout << out.dump() << '\n';
  } else {
    std::cout << "question: " << t.question << "; " << t.items << " items, " << t.threads
              << (t.threads == 1 ? " host thread, " : " host threads, ") << format_bytes(t.host_room)
              << " for a host plan\n";
    char line[160];
    std::snprintf(line, sizeof line, "  %-8s %-12s %-5s %-20s %10s %11s  %s\n", "role", "algorithm", "on", "verdict",
                  "bytes", "seconds", "why");
    std::cout << line;
    for (const plan_candidate& c : t.candidates) {
      std::snprintf(line, sizeof line, "  %-8s %-12s %-5s %-20s %10s %11s  ", c.role.empty() ? "" : c.role.c_str(),
                    c.algorithm.c_str(), c.backend.c_str(), verdict(c).c_str(),
                    bytes_cell(c.bytes).c_str(), seconds_cell(c.seconds).c_str());
      std::cout << line << c.why << '\n';
    }
    if (t.chosen.algorithm.empty()) std::cout << "plan: none; the solve would refuse: " << t.refusal << '\n';
    else std::cout << "plan: " << t.chosen.algorithm << " on " << t.chosen.backend << ": " << t.chosen.reason << '\n';
  }
  std::cout.flush();
  return t.chosen.algorithm.empty() ? 3 : 0;
}

}  // namespace ssum::cli
