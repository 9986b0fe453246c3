#include <ssum/ssum.hpp>

#include <cstdio>

int main() {
  const ssum::problem p = ssum::parse_problem("target: 7\n1 2 4 8\n");
  const ssum::solution s = ssum::solve(ssum::cpu{1}, p);
  const bool ok = s.feasible && ssum::is_certificate(p, s.subset) && s.subset.size() == 3;
  std::puts(ok ? "consumer: ok" : "consumer: wrong answer");
  return ok ? 0 : 1;
}
