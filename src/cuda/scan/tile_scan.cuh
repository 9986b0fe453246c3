#pragma once
// The pieces of a single-pass tiled scan (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA NVR-2016-002):
//   tile_io     coalesced loads and stores, transposed through shared memory so that each
//               thread then owns `Items` consecutive elements;
//   tile_state  what each tile publishes: its aggregate as soon as it is known, its inclusive
//               prefix once its predecessors' is, with a status flag (release/acquire);
//   look_back   warp 0 of a tile reads the status of the 32 preceding tiles at a time and
//               combines aggregates until it reaches an inclusive prefix.
// Tiles take their index from an atomic counter, so a tile only ever waits on tiles that
// are already running: no deadlock whatever the grid size or scheduling.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ssum::cuda_detail {

constexpr unsigned status_invalid = 0, status_aggregate = 1, status_inclusive = 2;

// How tile_io moves a tile between global memory and registers. Both forms ship:
//   plain     block-striped loads and stores, one block barrier per transpose, every element
//             bounds-checked, default cache policy (select, and the float scan's tile sums);
//   streamed  each warp transposes its own 32 x Items elements through its own part of
//             shared memory (__syncwarp, no block barrier), full tiles load and store without
//             bounds checks, and input and output carry evict-first cache hints (the scan's
//             tiles; scan_policy.cuh says why).
enum class tile_access { plain, streamed };

template <bool Streaming, class T>
__device__ __forceinline__ T load_element(const T* p) {
  if constexpr (Streaming) return __ldcs(p);
  else return *p;
}
template <bool Streaming, class T>
__device__ __forceinline__ void store_element(T* p, T v) {
  if constexpr (Streaming) __stcs(p, v);
  else *p = v;
}

// One padding slot per 32 elements: the blocked reads (stride Items) become conflict-free.
__device__ __forceinline__ int padded(int i) { return i + i / 32; }

template <int Threads, int Items, class Element>
struct tile_io {
  static constexpr int tile = Threads * Items;
  static constexpr int slots = tile + tile / 32;

  // The k-th coalesced element this thread moves: striped over the block (plain), or over its
  // warp's own 32 x Items elements (streamed).
  template <tile_access Access>
  __device__ static int striped(int k) {
    if constexpr (Access == tile_access::streamed) {
      return static_cast<int>(threadIdx.x / 32) * 32 * Items + k * 32 + static_cast<int>(threadIdx.x % 32);
    } else {
      return k * Threads + static_cast<int>(threadIdx.x);
    }
  }
  template <tile_access Access>
  __device__ static void transpose_barrier() {
    if constexpr (Access == tile_access::streamed) __syncwarp();
    else __syncthreads();
  }

  // in[base, base + valid) -> v[k] = element threadIdx.x * Items + k; lanes past `valid`
  // repeat their last valid element (or Fill when they have none). buf: `slots` elements.
  template <class Out, tile_access Access = tile_access::plain, class In>
  __device__ static void load(const In* in, std::size_t base, int valid, Out (&v)[Items], In* buf) {
    constexpr bool streamed = Access == tile_access::streamed;
    if (streamed && valid == tile) {
      In r[Items];  // all loads in flight before the first shared-memory store
#pragma unroll
      for (int k = 0; k < Items; ++k) r[k] = load_element<streamed>(in + base + striped<Access>(k));
#pragma unroll
      for (int k = 0; k < Items; ++k) buf[padded(striped<Access>(k))] = r[k];
    } else {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int i = striped<Access>(k);  // a warp reads 32 neighbours
        if (i < valid) buf[padded(i)] = load_element<streamed>(in + base + i);
      }
    }
    transpose_barrier<Access>();
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = threadIdx.x * Items + k;
      v[k] = i < valid ? static_cast<Out>(buf[padded(i)]) : (k > 0 ? v[k - 1] : Out{});
    }
  }

  // Stores go through shared memory too: stage() puts element threadIdx.x * Items + k of the
  // result in place (straight from registers, so no second array of results is held), then
  // flush() writes the tile out coalesced. The caller makes sure no thread still reads `buf`
  // from load() (a __syncthreads() since).
  template <class Out>
  __device__ static void stage(int k, Out value, Out* buf) {
    buf[padded(threadIdx.x * Items + k)] = value;
  }
  template <tile_access Access = tile_access::plain, class Out>
  __device__ static void flush(Out* out, std::size_t base, int valid, const Out* buf) {
    constexpr bool streamed = Access == tile_access::streamed;
    transpose_barrier<Access>();
    if (streamed && valid == tile) {
#pragma unroll
      for (int k = 0; k < Items; ++k) {
        const int i = striped<Access>(k);
        store_element<streamed>(out + base + i, buf[padded(i)]);
      }
      return;
    }
#pragma unroll
    for (int k = 0; k < Items; ++k) {
      const int i = striped<Access>(k);
      if (i < valid) store_element<streamed>(out + base + i, buf[padded(i)]);
    }
  }
};

template <class T, bool Packed = (sizeof(T) <= 4)>
struct tile_state;

template <class T>
struct tile_state<T, true> {
  unsigned long long* word;    // per tile; zeroed before the launch
  unsigned long long* ticket;  // next tile index to hand out; zeroed before the launch
  unsigned long long* done;    // blocks finished (reset_when_last); zeroed before the launch

  // Scratch layout: ticket, done, then the words; all of it starts at zero.
  __host__ __device__ static std::size_t bytes(std::size_t tiles) { return 8 * (2 + tiles); }
  static tile_state bind(void* scratch, std::size_t) {
    auto* base = static_cast<unsigned long long*>(scratch);
    return {base + 2, base, base + 1};
  }

  __device__ void publish(std::size_t tile, T value, unsigned status) const {
    unsigned bits = 0;
    memcpy(&bits, &value, sizeof(T));
    ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(word[tile])
        .store((static_cast<unsigned long long>(status) << 32) | bits, ::cuda::memory_order_relaxed);
  }
  template <bool Backoff = false>
  __device__ unsigned wait(std::size_t tile, T& value) const {
    ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device> w(word[tile]);
    unsigned long long v;
    unsigned sleep = 16;
    while (((v = w.load(::cuda::memory_order_relaxed)) >> 32) == status_invalid) {
      if constexpr (Backoff) {
        __nanosleep(sleep);
        sleep = sleep < 512 ? 2 * sleep : sleep;
      }
    }
    const unsigned bits = static_cast<unsigned>(v);
    memcpy(&value, &bits, sizeof(T));
    return static_cast<unsigned>(v >> 32);
  }
};

// 8-byte values: status and value in one 16-byte word, written and read by single 128-bit
// relaxed accesses (PTX .b128, sm_70+), so a reader sees both or neither and no fence is
// needed (the earlier flag + value + release/acquire form held int64 at 0.57x CUB).
template <class T>
struct tile_state<T, false> {
  static_assert(sizeof(T) <= 8, "tile values up to 8 bytes");
  unsigned long long* word;    // per tile: {status, value bits}, 16-byte aligned, zeroed before the launch
  unsigned long long* ticket;  // next tile index to hand out; zeroed before the launch
  unsigned long long* done;    // blocks finished (reset_when_last); zeroed before the launch

  // Scratch layout: ticket, done, then the words; all of it starts at zero.
  __host__ __device__ static std::size_t bytes(std::size_t tiles) { return 16 * (1 + tiles); }
  static tile_state bind(void* scratch, std::size_t) {
    auto* base = static_cast<unsigned long long*>(scratch);
    return {base + 2, base, base + 1};
  }

  __device__ void publish(std::size_t tile, T value, unsigned status) const {
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof(T));
    const unsigned long long s = status;
    asm volatile(
        "{\n\t.reg .b128 w;\n\tmov.b128 w, {%1, %2};\n\tst.relaxed.gpu.global.b128 [%0], w;\n\t}"
        :
        : "l"(word + 2 * tile), "l"(s), "l"(bits)
        : "memory");
  }
  template <bool Backoff = false>
  __device__ unsigned wait(std::size_t tile, T& value) const {
    unsigned long long s, bits;
    unsigned sleep = 16;
    for (;;) {
      asm volatile(
          "{\n\t.reg .b128 w;\n\tld.relaxed.gpu.global.b128 w, [%2];\n\tmov.b128 {%0, %1}, w;\n\t}"
          : "=l"(s), "=l"(bits)
          : "l"(word + 2 * tile)
          : "memory");
      if (s != status_invalid) break;
      if constexpr (Backoff) {
        __nanosleep(sleep);
        sleep = sleep < 512 ? 2 * sleep : sleep;
      }
    }
    memcpy(&value, &bits, sizeof(T));
    return static_cast<unsigned>(s);
  }
};

// Tile state that outlives a launch (kept_state.cuh): called by every thread of every block
// once the block's last look-back is over. The block that gets here last knows that no
// look-back reads the state any more, and zeroes it all, ticket and counter included, so
// that the next launch on it needs no memset: one launch where there were two.
template <class State>
__device__ void reset_when_last(const State& state, std::size_t tiles) {
  __shared__ bool s_last;
  __syncthreads();  // this block's look-backs are over
  if (threadIdx.x == 0) s_last = atomicAdd(state.done, 1ull) == gridDim.x - 1;
  __syncthreads();
  if (s_last) {
    const std::size_t words = State::bytes(tiles) / sizeof(unsigned long long);
    for (std::size_t i = threadIdx.x; i < words; i += blockDim.x) state.ticket[i] = 0;  // the scratch starts at ticket
  }
}

// Called by all 32 lanes of one warp for tile > 0; returns the exclusive prefix of `tile`
// (everything before it) in every lane. Backoff: lanes sleep between polls of a tile that
// has not published yet, leaving the L2 to the data stream (the scans; select polls
// without sleeping).
template <class State, class T, bool Backoff = false, class Op>
__device__ T look_back(const State& state, std::size_t tile, Op op) {
  const int lane = threadIdx.x % 32;
  T prefix{};
  bool have = false;
  long long end = static_cast<long long>(tile);  // this window: tiles [end - 32, end)
  for (;;) {
    const long long idx = end - 1 - lane;        // lane 0 is the nearest tile
    unsigned status = status_inclusive;
    T value{};
    if (idx >= 0) status = state.template wait<Backoff>(static_cast<std::size_t>(idx), value);
    // Tile 0 always publishes an inclusive prefix, so lanes before it are never reached.
    const unsigned found = __ballot_sync(0xffffffffu, idx >= 0 && status == status_inclusive);
    const int last = found ? __ffs(found) - 1 : 31;  // lanes [0, last] take part
    // Order-preserving tree reduction: higher lanes are farther left, so lane l folds lane
    // l + d in as op(left, right); lane 0 ends with value(last) op ... op value(0).
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const T farther = __shfl_down_sync(0xffffffffu, value, d);
      if (lane + d <= last) value = op(farther, value);
    }
    const T window = __shfl_sync(0xffffffffu, value, 0);
    prefix = have ? op(window, prefix) : window;
    have = true;
    if (found) return prefix;
    end -= 32;
  }
}

}  // namespace ssum::cuda_detail
