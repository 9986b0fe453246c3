// Differencing for the completion search (differencing.hpp).
#include "solver/completion/differencing.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace ssum::detail {
namespace {

// A max-heap of (value, id) by value alone, with the step differencing needs: the top
// replaced and sifted down (one pass instead of a pop and a push).
class largest_first {
 public:
  using entry = std::pair<uint128, std::uint32_t>;
  explicit largest_first(std::vector<entry> v) : heap_(std::move(v)) {
    std::make_heap(heap_.begin(), heap_.end(), below);
  }
  std::size_t size() const { return heap_.size(); }
  const entry& top() const { return heap_.front(); }
  const std::vector<entry>& entries() const { return heap_; }
  entry pop() {
    std::pop_heap(heap_.begin(), heap_.end(), below);
    const entry e = heap_.back();
    heap_.pop_back();
    return e;
  }
  void push(entry e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), below);
  }
  void replace_top(entry e) {
    const std::size_t n = heap_.size();
    std::size_t at = 0;
    for (;;) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1].first > heap_[child].first) ++child;
      if (heap_[child].first <= e.first) break;
      heap_[at] = heap_[child];
      at = child;
    }
    heap_[at] = e;
  }

 private:
  struct by_value {
    bool operator()(const entry& x, const entry& y) const { return x.first < y.first; }
  };
  static constexpr by_value below{};
  std::vector<entry> heap_;
};

// The dense pass's Karmarkar-Karp: a 4-ary max-heap of 64-bit values with their ids kept
// apart (two cache lines per level at most), for the pool of a few thousand numbers.
class wide_heap {
 public:
  wide_heap(std::vector<std::uint64_t> values, std::vector<std::uint32_t> ids)
      : value_(std::move(values)), id_(std::move(ids)) {
    for (std::size_t i = value_.size(); i-- > 0;) sift_down(i, value_[i], id_[i]);
  }
  std::size_t size() const { return value_.size(); }
  std::uint64_t top_value() const { return value_[0]; }
  std::uint32_t top_id() const { return id_[0]; }
  void pop() {
    const std::uint64_t v = value_.back();
    const std::uint32_t i = id_.back();
    value_.pop_back(), id_.pop_back();
    if (!value_.empty()) sift_down(0, v, i);
  }
  void replace_top(std::uint64_t v, std::uint32_t i) { sift_down(0, v, i); }

 private:
  void sift_down(std::size_t at, std::uint64_t v, std::uint32_t i) {
    const std::size_t n = value_.size();
    for (;;) {
      const std::size_t first = 4 * at + 1;
      if (first >= n) break;
      const std::size_t end = std::min(first + 4, n);
      std::size_t best = first;
      for (std::size_t c = first + 1; c < end; ++c) best = value_[c] > value_[best] ? c : best;
      if (value_[best] <= v) break;
      value_[at] = value_[best], id_[at] = id_[best];
      at = best;
    }
    value_[at] = v, id_[at] = i;
  }
  std::vector<std::uint64_t> value_;
  std::vector<std::uint32_t> id_;
};

// How many numbers spread evenly below 2^bits Karmarkar-Karp needs to end at 0: its last
// difference is about p^(-ln(p) / (2 ln 2)) of the bound (Yakir, *The differencing algorithm
// LDM for partitioning*, 1996), 1.04 ln(p)^2 bits fewer.
double numbers_for_bits(double bits) { return std::exp(std::sqrt(bits / 1.04)); }

// The dense pass's margin: its pool differences 5 bits more than its widest number needs
// (random and partition classes, n = 5000..10^5: 20 of 20 seeds end at 0; with 3 bits, 11 to
// 19 of 20).
constexpr double spare_bits = 5;

}  // namespace

differenced difference_down_to(const std::vector<uint128>& weights, uint128 dummy, std::size_t k,
                               std::mt19937_64* shake, std::size_t record_from) {
  differenced d;
  const std::size_t m = weights.size() + (dummy > 0 ? 1 : 0);
  d.numbers = m;
  d.value.reserve(2 * m);
  d.value = weights;
  if (dummy > 0) d.value.push_back(dummy);
  d.parts.reserve(m);
  std::vector<largest_first::entry> start;
  start.reserve(m);
  for (std::size_t i = 0; i < m; ++i) start.push_back({d.value[i], std::uint32_t(i)});
  largest_first heap(std::move(start));
  // Sums of squares and totals from the numbers left, summed afresh (a running sum would
  // lose the small numbers against the first ones' squares).
  d.square_sums.assign(std::min(m, record_from) + 1, 0);
  d.totals.assign(d.square_sums.size(), 0);
  const auto record = [&] {
    if (heap.size() == 48) {
      for (const auto& e : heap.entries()) d.left_at_48.push_back(e.second);
      d.parts_at_48 = d.parts.size();
    }
    if (heap.size() >= d.square_sums.size()) return;
    double squares = 0, total = 0;
    for (const auto& e : heap.entries()) squares += double(e.first) * double(e.first), total += double(e.first);
    d.square_sums[heap.size()] = squares, d.totals[heap.size()] = total;
  };
  record();
  while (heap.size() > k) {
    const auto a = heap.pop();
    auto b = heap.top();
    const auto id = static_cast<std::uint32_t>(d.value.size());
    if (shake && heap.size() >= 2 && (*shake)() % 4 == 0) {
      heap.pop();  // pair a with the third largest; b goes back
      const auto c = heap.pop();
      heap.push(b);
      b = c;
      heap.push({a.first - b.first, id});
    } else {
      heap.replace_top({a.first - b.first, id});
    }
    d.value.push_back(a.first - b.first);
    d.parts.push_back({a.second, b.second});
    record();
  }
  for (const auto& e : heap.entries()) d.left.push_back(e.second);
  return d;
}

std::optional<differenced> dense_difference(const std::vector<uint128>& weights, uint128 dummy) {
  const std::size_t w = weights.size(), m = w + (dummy > 0 ? 1 : 0);
  if (w < 1024 || m >= (std::size_t{1} << 31)) return std::nullopt;
  std::uint64_t most = 0;
  for (const uint128 x : weights) {
    if (x >> 64) return std::nullopt;
    most = std::max(most, std::uint64_t(x));
  }
  differenced d;
  d.numbers = m;
  d.parts.reserve(m);
  const auto node = [&](std::uint32_t larger, std::uint32_t smaller) {
    d.parts.push_back({larger, smaller});
    return static_cast<std::uint32_t>(m + d.parts.size() - 1);
  };
  struct number {
    std::uint64_t value;
    std::uint32_t id;
  };
  // d, where it is wider than every weight (a target far from the middle), differenced with
  // weights in input order until it is not; then it is one more number, id w.
  std::size_t next = 0;
  std::uint64_t d_left = 0;
  std::uint32_t d_id = std::uint32_t(w);
  if (dummy > 0) {
    uint128 r = dummy;
    for (; r > most && next < w; ++next) r -= weights[next], d_id = node(d_id, std::uint32_t(next));
    if (r > most) return std::nullopt;  // beyond the weights' total: the full pass decides
    d_left = std::uint64_t(r);
  }
  // One round of neighbours in value order: a counting sort by the top bits (at most as many
  // buckets as numbers), then pairs of consecutive numbers: about half as many differences,
  // each below a few buckets' width, about log2(m) bits narrower than the weights.
  // Positions: next..w-1 the weights left, w the rest of d.
  const auto value_at = [&](std::uint32_t i) { return i < w ? std::uint64_t(weights[i]) : d_left; };
  std::vector<number> round;
  {
    const std::size_t c = w - next + (dummy > 0 ? 1 : 0);
    int shift = 0;
    while ((most >> shift) >= c) ++shift;
    std::vector<std::uint32_t> at((most >> shift) + 2, 0), order(c);
    const std::uint32_t end = std::uint32_t(dummy > 0 ? w + 1 : w);
    for (std::uint32_t i = std::uint32_t(next); i < end; ++i) ++at[(value_at(i) >> shift) + 1];
    for (std::size_t b = 1; b < at.size(); ++b) at[b] += at[b - 1];
    for (std::uint32_t i = std::uint32_t(next); i < end; ++i) order[at[value_at(i) >> shift]++] = i;
    const auto id_at = [&](std::uint32_t i) { return i < w ? i : d_id; };
    round.reserve(c / 2 + 1);
    if (c % 2 == 1) round.push_back({value_at(order[0]), id_at(order[0])});  // the odd one out, lightest
    for (std::size_t j = c % 2; j + 1 < c; j += 2) {
      std::uint32_t a = order[j], b = order[j + 1];
      if (value_at(a) < value_at(b)) std::swap(a, b);
      round.push_back({value_at(a) - value_at(b), node(id_at(a), id_at(b))});
    }
  }
  // By bit width, narrowest first (a counting sort): the pool is the narrowest numbers, as
  // many as differencing needs to take the widest of them (and the running number, about
  // as wide) down to 0 with bits to spare; the others are differenced into one running
  // number, widest first: each difference of r and x is |r - x|, so r stays below twice the
  // widest left and ends below about twice the pool's widest.
  const std::size_t count = round.size();
  std::array<std::uint32_t, 66> width_at{};
  for (const number& x : round) ++width_at[std::bit_width(x.value) + 1];
  for (std::size_t b = 1; b < width_at.size(); ++b) width_at[b] += width_at[b - 1];
  std::size_t pool = 0;
  for (int bits = 0; bits <= 64 && pool == 0; ++bits) {
    const std::size_t narrower = width_at[bits + 1];  // of width at most `bits`
    const double wanted = std::ceil(numbers_for_bits(bits + spare_bits));
    if (double(narrower) >= wanted) pool = std::max<std::size_t>(256, std::size_t(wanted));
  }
  if (pool == 0 || pool > count) return std::nullopt;  // too few for a perfect partition: the full pass decides
  std::vector<std::uint32_t> narrowest_first(count);
  for (std::size_t j = 0; j < count; ++j) narrowest_first[width_at[std::bit_width(round[j].value)]++] = std::uint32_t(j);
  std::uint64_t r = 0;
  std::uint32_t r_id = 0;
  bool running = false;
  for (std::size_t at = count; at-- > pool;) {
    const number& x = round[narrowest_first[at]];
    if (!running) {
      r = x.value, r_id = x.id, running = true;
      continue;
    }
    r_id = r >= x.value ? node(r_id, x.id) : node(x.id, r_id);
    r = r >= x.value ? r - x.value : x.value - r;
  }
  // Karmarkar-Karp over the pool and the running number, to the end.
  std::vector<std::uint64_t> pool_value;
  std::vector<std::uint32_t> pool_id;
  pool_value.reserve(pool + 1), pool_id.reserve(pool + 1);
  for (std::size_t at = 0; at < pool; ++at) {
    const number& x = round[narrowest_first[at]];
    pool_value.push_back(x.value), pool_id.push_back(x.id);
  }
  if (running) pool_value.push_back(r), pool_id.push_back(r_id);
  wide_heap heap(std::move(pool_value), std::move(pool_id));
  while (heap.size() > 1) {
    const std::uint64_t a = heap.top_value();
    const std::uint32_t a_id = heap.top_id();
    heap.pop();
    const std::uint32_t made = node(a_id, heap.top_id());
    heap.replace_top(a - heap.top_value(), made);
  }
  if (heap.top_value() != 0) return std::nullopt;
  d.left = {heap.top_id()};
  return d;
}

std::vector<char> sides(const differenced& d, const std::vector<char>& side_of_left) {
  std::vector<char> side(d.ids(), 0);
  for (std::size_t j = 0; j < d.left.size(); ++j) side[d.left[j]] = side_of_left[j];
  for (std::size_t j = d.parts.size(); j-- > 0;) {
    const char s = side[d.numbers + j];
    side[d.parts[j].first] = s;
    side[d.parts[j].second] = char(1 - s);
  }
  return side;
}

}  // namespace ssum::detail
