// Host memory of base arrays for host backends: 64-byte aligned, zero-filled,
// allocated lazily on first write (a base freed before it is written never
// gets memory). Large buffers of freed bases are kept in a pool (up to
// kPoolLimit bytes, oldest returned first) and reused for a base of the
// same rounded size, or up to a quarter smaller (up to kSpareRatio times
// smaller when no closer one is pooled): a loop that allocates and frees its
// temporaries each iteration (NumPy programs do) then pays no page faults,
// no kernel page clearing and no munmap per iteration; temporaries that grow a little each
// iteration get a quarter more room (fresh_capacity). Small buffers (under kPoolMin) are
// kept too, in a free list per size (kSmallPerSize each, kSmallLimit bytes
// in all): aligned_alloc and free of a small buffer cost more than the
// eager path's whole instruction on 10 elements. A buffer that the first kernel
// writes completely is not zero-filled. Buffers of kHugeMin bytes or more
// are whole, aligned transparent huge pages (allocate). Used by the ref and
// cpu backends. With a profile attached
// (track), allocations and releases update its bytes_allocated(_peak), in
// bytes of the bases (alignment padding not counted).
#pragma once

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <sys/mman.h>

#include "vm/base_map.hpp"
#include "vm/error.hpp"
#include "vm/profile.hpp"
#include "vm/size.hpp"
#include "vm/view.hpp"

namespace arrvm {

class HostMemory {
 public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kPoolMin = std::size_t{1} << 16;     // smaller ones: malloc's bins do this
  static constexpr std::size_t kPoolLimit = std::size_t{1} << 29;   // bytes kept for reuse at most
  static constexpr std::size_t kSmallPerSize = 16;                  // small buffers kept per size
  static constexpr std::size_t kSmallLimit = std::size_t{4} << 20;  // bytes of small buffers kept
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;    // x86-64's and arm64's usual THP size
  static constexpr std::size_t kHugeMin = std::size_t{4} << 20;     // buffers this large get huge pages
  static constexpr std::size_t kSpareRatio = 4;  // a pooled buffer serves a base down to 1/4 of its size

  HostMemory() = default;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;
  ~HostMemory() {
    buffers_.clear();
    drain_pool();
  }

  // Frees a buffer: std::free, or the user's deleter for adopted memory
  // (held behind a pointer: a Buffer is made and dropped for every base,
  // and a std::function in it cost more than the rest of the Buffer).
  struct Deleter {
    std::shared_ptr<std::function<void(void*)>> user;
    void operator()(void* p) const {
      if (user) {
        (*user)(p);
      } else {
        std::free(p);
      }
    }
  };

  struct Buffer {
    DType dtype = DType::Float64;
    int64_t nelem = 0;
    std::unique_ptr<void, Deleter> data;  // null until first written
    bool adopted = false;                 // data is the user's (Array::adopt): not counted as allocated
    bool unfilled = false;                // never read before written (Backend::leave_unfilled)
    std::size_t capacity = 0;             // bytes allocated for data (at least bytes(), rounded)

    std::size_t bytes() const { return static_cast<std::size_t>(nelem) * dtype_size(dtype); }
  };

  void declare(BaseId id, DType dtype, int64_t nelem) {
    ARRVM_ASSERT(nelem >= 0);
    Buffer& b = buffers_[id];  // (in place: a Buffer's deleter is a std::function)
    if (b.data && !b.adopted) held_ -= b.bytes();
    if (b.data || b.adopted) b = Buffer{};
    b.dtype = dtype;
    b.nelem = nelem;
  }

  void track(Profile* profile) { profile_ = profile; }

  // At most `bytes` of base arrays held at once (ARRVM_MEM_LIMIT; 0: no
  // limit): a first write past it throws OutOfMemoryError.
  void limit(int64_t bytes) { limit_ = bytes > 0 ? static_cast<std::size_t>(bytes) : 0; }

  // Makes `data` the base's memory (Backend::adopt); bools are normalized to
  // 0/1 in place (kernels read them as C bools).
  void adopt(BaseId id, void* data, std::function<void(void*)> deleter) {
    Buffer& b = find(id);
    if (b.data && !b.adopted) {
      held_ -= b.bytes();
      if (profile_ != nullptr) profile_->deallocated(b.bytes());
    }
    if (b.dtype == DType::Bool) {
      auto* p = static_cast<unsigned char*>(data);
      for (int64_t i = 0; i < b.nelem; ++i) p[i] = p[i] != 0;
    }
    if (!deleter) deleter = [](void*) {};
    b.data = std::unique_ptr<void, Deleter>(
        data, Deleter{std::make_shared<std::function<void(void*)>>(std::move(deleter))});
    b.adopted = true;
  }

  void release(BaseId id) {
    Buffer* found = buffers_.find(id);
    if (found == nullptr) return;
    Buffer& b = *found;
    if (b.data && !b.adopted) {
      held_ -= b.bytes();
      if (profile_ != nullptr) profile_->deallocated(b.bytes());
      const std::size_t rounded = b.capacity;
      if (rounded < kPoolMin) {
        std::vector<void*>& list = small_[rounded / kAlignment];
        if (list.size() < kSmallPerSize && small_bytes_ + rounded <= kSmallLimit) {
          list.push_back(b.data.release());
          small_bytes_ += rounded;
        }
      } else if (rounded <= kPoolLimit) {
        pool_.push_back({b.data.release(), rounded});
        pooled_ += rounded;
        while (pooled_ > kPoolLimit) {  // return the oldest
          std::free(pool_.front().data);
          pooled_ -= pool_.front().bytes;
          pool_.pop_front();
        }
      }
    }
    buffers_.erase(id);
  }

  // Moves `from`'s buffer to `to` (Backend::rename), releasing what `to` held.
  void rename(BaseId from, BaseId to) {
    Buffer moved = std::move(find(from));
    buffers_.erase(from);
    release(to);
    buffers_[to] = std::move(moved);
  }

  // Copies `count` elements, from element `offset` every `stride`
  // elements, to `dst`, next to each other (a base never written reads as
  // zeros). The caller keeps them inside the base.
  void read(BaseId id, int64_t offset, int64_t count, void* dst, int64_t stride = 1) {
    Buffer& b = find(id);
    ARRVM_ASSERT(count == 0 || (offset >= 0 && offset < b.nelem && offset + (count - 1) * stride >= 0 &&
                                offset + (count - 1) * stride < b.nelem));
    const std::size_t size = dtype_size(b.dtype);
    if (!b.data) {
      std::memset(dst, 0, static_cast<std::size_t>(count) * size);
      return;
    }
    const char* src = static_cast<const char*>(b.data.get()) + static_cast<std::ptrdiff_t>(offset) * size;
    if (count == 1 && size == 8) {  // (a loop's element read: a load, not a call to memmove)
      std::memcpy(dst, src, 8);
      return;
    }
    if (stride == 1) {
      std::memcpy(dst, src, static_cast<std::size_t>(count) * size);
      return;
    }
    auto copy = [&](auto word) {  // (a load and a store an element, not a call)
      using W = decltype(word);
      W* out = static_cast<W*>(dst);
      for (int64_t i = 0; i < count; ++i)
        std::memcpy(&out[i], src + i * stride * std::ptrdiff_t{sizeof(W)}, sizeof(W));
    };
    switch (size) {
      case 1:
        copy(uint8_t{});
        break;
      case 2:
        copy(uint16_t{});
        break;
      case 4:
        copy(uint32_t{});
        break;
      case 8:
        copy(uint64_t{});
        break;
      default: {
        char* out = static_cast<char*>(dst);
        for (int64_t i = 0; i < count; ++i)
          std::memcpy(out + i * size, src + i * stride * std::ptrdiff_t(size), size);
      }
    }
  }

  // Elements [offset, offset + count) from `src` (allocating the base, zero-filled, on first use).
  void write(BaseId id, int64_t offset, int64_t count, const void* src) {
    Buffer& b = find(id);
    ARRVM_ASSERT(offset >= 0 && count >= 0 && offset <= b.nelem - count);
    const std::size_t size = dtype_size(b.dtype);
    char* p = static_cast<char*>(for_write(id));
    if (count == 1 && size == 8) {  // (a loop's element write: a store, not a call to memmove)
      std::memcpy(p + static_cast<std::size_t>(offset) * 8, src, 8);
      return;
    }
    std::memcpy(p + static_cast<std::size_t>(offset) * size, src, static_cast<std::size_t>(count) * size);
  }

  Buffer& find(BaseId id) {
    Buffer* b = buffers_.find(id);
    if (b == nullptr) throw InternalError("host memory: unknown base b" + std::to_string(id));
    return *b;
  }

  // The base's memory, allocating on first use: zero-filled, unless the
  // caller writes every element before anything reads it (`full`).
  void* for_write(BaseId id, bool full = false) {
    Buffer& b = find(id);
    if (!b.data) {
      const std::size_t n = b.bytes();  // (bounded: vm/size.hpp)
      if (limit_ > 0 && n > limit_ - std::min(held_, limit_)) {
        throw OutOfMemoryError("base b" + std::to_string(id) + " needs " + std::to_string(n) + " bytes, " +
                               std::to_string(held_) + " of ARRVM_MEM_LIMIT=" + std::to_string(limit_) +
                               " are in use");
      }
      const std::size_t rounded = round_up(n);
      std::size_t capacity = rounded;
      void* p = take_pooled(rounded, &capacity);
      if (p == nullptr) {
        capacity = fresh_capacity(rounded);
        p = allocate(&capacity);
      }
      if (p == nullptr &&
          (!pool_.empty() || small_bytes_ > 0)) {  // memory is short: give the pools back first
        drain_pool();
        capacity = rounded;
        p = allocate(&capacity);
      }
      if (p == nullptr) throw_out_of_memory("base b" + std::to_string(id), n);
      if (!full && !b.unfilled) std::memset(p, 0, rounded);
      b.data.reset(p);
      b.capacity = capacity;
      held_ += n;
      if (profile_ != nullptr) profile_->allocated(n);
    }
    return b.data.get();
  }

  std::size_t pooled_bytes() const { return pooled_; }

  // The base's memory, or nullptr if it was never written.
  void* for_read(BaseId id) { return find(id).data.get(); }

 private:
  struct Pooled {
    void* data;
    std::size_t bytes;
  };

  // Fresh memory for *capacity bytes (rounded up to whole huge pages from
  // kHugeMin on). A buffer of kHugeMin or more is aligned to a huge page and
  // asks the kernel for transparent huge pages (MADV_HUGEPAGE, as NumPy
  // does from 4 MiB): its first touch then faults once per 2 MiB instead of
  // once per 4 KiB. A program's first call writes all its arrays for the
  // first time, and under a hypervisor a 4 KiB fault costs ~10 us: 64 MiB
  // took 190 ms to touch, 4 ms in huge pages. The rounding costs at most
  // one huge page of memory a buffer (under half of it), where THP backs
  // the last page; where THP is off the advice is ignored and the untouched
  // rounding costs no memory.
  static void* allocate(std::size_t* capacity) {
    if (*capacity < kHugeMin) return std::aligned_alloc(kAlignment, *capacity);
    *capacity = (*capacity + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, *capacity);
#ifdef MADV_HUGEPAGE
    if (p != nullptr) madvise(p, *capacity, MADV_HUGEPAGE);  // (advice: a failure changes nothing)
#endif
    return p;
  }

  static std::size_t round_up(std::size_t n) {
    return n == 0 ? kAlignment : (n + kAlignment - 1) / kAlignment * kAlignment;
  }

  // A pooled buffer for `rounded` bytes, or null; its size in *capacity.
  void* take_pooled(std::size_t rounded, std::size_t* capacity) {
    if (rounded < kPoolMin) {
      std::vector<void*>& list = small_[rounded / kAlignment];
      if (list.empty()) return nullptr;
      void* p = list.back();
      list.pop_back();
      small_bytes_ -= rounded;
      *capacity = rounded;
      return p;
    }
    // The smallest pooled buffer of at least `rounded` bytes and at most a
    // quarter more (the latest of equal ones): a loop whose temporaries
    // shrink by a row each iteration (LU, Cholesky, Gram-Schmidt) reuses
    // the last one. Failing that, the smallest of up to kSpareRatio times
    // `rounded`: its pages are already this process's and written, where
    // a fresh buffer's must be faulted in and cleared. Temporaries that
    // shrink by more than a quarter over a loop (a boolean mask's
    // selection, z[inside] of an escape-time loop) otherwise took fresh
    // memory at each quarter while the outgrown buffers sat in the pool;
    // under a hypervisor that hands freed memory back to its host, a fresh
    // huge page took 3 ms per MiB to clear. A buffer is pooled again under
    // its own size, so the slack serves a larger request later.
    auto best = pool_.rend();
    auto spare = pool_.rend();
    for (auto it = pool_.rbegin(); it != pool_.rend(); ++it) {
      if (it->bytes < rounded || it->bytes > rounded * kSpareRatio) continue;
      if (it->bytes > rounded + rounded / 4) {
        if (spare == pool_.rend() || it->bytes < spare->bytes) spare = it;
        continue;
      }
      if (best == pool_.rend() || it->bytes < best->bytes) best = it;
      if (it->bytes == rounded) break;
    }
    if (best == pool_.rend()) best = spare;
    if (best == pool_.rend()) return nullptr;
    void* p = best->data;
    *capacity = best->bytes;
    pooled_ -= best->bytes;
    pool_.erase(std::next(best).base());
    return p;
  }

  // The size to allocate for `rounded` bytes that no pooled buffer fits.
  // When the pool holds one a little smaller (up to a quarter), the
  // temporaries grow (a Cholesky's `L[j+1:, :j]`, a column more each
  // iteration): that one is freed and the new one gets a quarter more, so
  // the next iterations reuse it instead of each mapping and clearing fresh
  // pages (a buffer this large comes from mmap; its pages fault in when
  // first written). Untouched slack costs no memory until it is written.
  std::size_t fresh_capacity(std::size_t rounded) {
    if (rounded < kPoolMin) return rounded;
    for (auto it = pool_.rbegin(); it != pool_.rend(); ++it) {
      if (it->bytes >= rounded || it->bytes < rounded - rounded / 4) continue;
      std::free(it->data);
      pooled_ -= it->bytes;
      pool_.erase(std::next(it).base());
      return round_up(rounded + rounded / 4);
    }
    return rounded;
  }

  void drain_pool() {
    for (const Pooled& p : pool_) std::free(p.data);
    pool_.clear();
    pooled_ = 0;
    for (std::vector<void*>& list : small_) {
      for (void* p : list) std::free(p);
      list.clear();
    }
    small_bytes_ = 0;
  }

  BaseMap<Buffer> buffers_;  // (flat: no allocation per base)
  Profile* profile_ = nullptr;
  std::size_t limit_ = 0;    // 0: none
  std::size_t held_ = 0;     // bytes of non-adopted bases with memory
  std::deque<Pooled> pool_;  // oldest first
  std::size_t pooled_ = 0;
  std::array<std::vector<void*>, kPoolMin / kAlignment> small_;  // by rounded size / kAlignment
  std::size_t small_bytes_ = 0;
};

}  // namespace arrvm
