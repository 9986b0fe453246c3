#pragma once
// Internal: the words every plan's reason is written in (solution::plan.reason), so that the
// per-algorithm choosers and choose.cpp say seconds, counts and lists alike.
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace ssum::detail {

// "0.35 s"
inline std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2g s", s);
  return text;
}

// "1001" below 10^5, "2.5e+09" above.
inline std::string count_text(double v) {
  char text[32];
  if (v < 1e5) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%.2g", v);
  return text;
}

// "gcd, complement"
inline std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
  return text;
}

// "2^100" for about 2^(n/2) sums of one two-list list.
inline std::string two_list_sums_text(std::size_t n) { return "2^" + std::to_string((n + 1) / 2); }

}  // namespace ssum::detail
