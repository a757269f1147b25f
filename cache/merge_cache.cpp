#include "cache/merge_cache.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <filesystem>
#include <initializer_list>

#include "cache/disk_entry.hpp"
#include "cache/disk_writer.hpp"
#include "vm/error.hpp"
#include "vm/hash.hpp"
#include "vm/log.hpp"

namespace arrvm {

namespace {

constexpr const char kMagic[] = "ARRVMMC2";  // 8 bytes; 2: the rules stamp
constexpr std::size_t kMagicLen = sizeof(kMagic) - 1;
constexpr uint64_t kConstFlag = uint64_t{1} << 63;
constexpr uint64_t kProvisionalFlag = 1;

// FxHash-style word mixing with a final avalanche: one multiply per word,
// which keeps hashing well under the 1 us/instruction budget of a hit. Four
// lanes over interleaved words, joined at the end: one chain of multiplies
// was latency-bound (about 5 cycles a word, a third of building a key). The
// hash only locates a candidate; the full key is compared.
uint64_t hash_words(const std::vector<uint64_t>& w) {
  constexpr uint64_t k = 0x517cc1b727220a95ull;
  uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull, c = 0xa4093822299f31d0ull,
           d = 0x082efa98ec4e6c89ull;
  const std::size_t n = w.size();
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a = (std::rotl(a, 5) ^ w[i]) * k;
    b = (std::rotl(b, 5) ^ w[i + 1]) * k;
    c = (std::rotl(c, 5) ^ w[i + 2]) * k;
    d = (std::rotl(d, 5) ^ w[i + 3]) * k;
  }
  for (; i < n; ++i) a = (std::rotl(a, 5) ^ w[i]) * k;
  uint64_t h = a;
  for (uint64_t x : {b, c, d, static_cast<uint64_t>(n)}) h = (std::rotl(h, 5) ^ x) * k;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

void put_string(std::vector<uint64_t>& w, const std::string& s) {
  w.push_back(s.size());
  for (std::size_t i = 0; i < s.size(); i += 8) {
    uint64_t x = 0;
    std::memcpy(&x, s.data() + i, std::min<std::size_t>(8, s.size() - i));
    w.push_back(x);
  }
}

std::size_t entry_bytes(const MergeKey& key, const Partition& p) {
  std::size_t b = sizeof(MergeEntry) + 64 + key.words.size() * sizeof(uint64_t);
  for (const Block& block : p.blocks) b += sizeof(Block) + block.size() * sizeof(uint32_t);
  return b;
}

// Entry: magic, u64 key words, the words, u64 flags, u64 rules stamp, u64
// blocks, per block u64 size and its u64 indices; then the hex SHA-256 of
// all that.
std::string encode(const MergeKey& key, const Partition& p, bool provisional, uint64_t rules_id) {
  std::string data(kMagic, kMagicLen);
  data.reserve(kMagicLen + 8 * (key.words.size() + key.instructions + 2 * p.blocks.size() + 4) + 64);
  put_u64(&data, key.words.size());
  for (uint64_t w : key.words) put_u64(&data, w);
  put_u64(&data, provisional ? kProvisionalFlag : 0);
  put_u64(&data, rules_id);
  put_u64(&data, p.blocks.size());
  for (const Block& b : p.blocks) {
    put_u64(&data, b.size());
    for (uint32_t i : b) put_u64(&data, i);
  }
  data += sha256_hex(data);
  return data;
}

enum class Decoded { Ok, OtherKey, OtherFormat, Corrupt };

Decoded decode(const std::string& data, const MergeKey& key, uint64_t rules_id, MergeEntry* out,
               std::string* why) {
  // An entry of an earlier format ("ARRVMMC1"): not damage, just stale.
  if (data.size() >= kMagicLen && data.compare(0, kMagicLen - 1, kMagic, kMagicLen - 1) == 0 &&
      data[kMagicLen - 1] != kMagic[kMagicLen - 1]) {
    return Decoded::OtherFormat;
  }
  if (data.size() < kMagicLen + 64 || data.compare(0, kMagicLen, kMagic) != 0) {
    *why = "bad header or truncated";
    return Decoded::Corrupt;
  }
  const std::size_t body = data.size() - 64;
  if (data.compare(body, 64, sha256_hex(data.substr(0, body))) != 0) {
    *why = "checksum mismatch (truncated or damaged)";
    return Decoded::Corrupt;
  }
  const std::string s = data.substr(0, body);
  std::size_t pos = kMagicLen;
  uint64_t nwords = 0;
  if (!get_u64(s, &pos, &nwords) || nwords > (s.size() - pos) / 8) {
    *why = "bad key length";
    return Decoded::Corrupt;
  }
  // Another key with the same hash (the file name): not damage, a miss.
  if (nwords != key.words.size()) return Decoded::OtherKey;
  for (uint64_t i = 0; i < nwords; ++i) {
    uint64_t w = 0;
    get_u64(s, &pos, &w);
    if (w != key.words[i]) return Decoded::OtherKey;
  }
  uint64_t flags = 0, stamp = 0, nblocks = 0;
  if (!get_u64(s, &pos, &flags) || !get_u64(s, &pos, &stamp) || !get_u64(s, &pos, &nblocks) ||
      nblocks > key.instructions) {
    *why = "bad partition header";
    return Decoded::Corrupt;
  }
  Partition p;
  p.blocks.reserve(nblocks);
  for (uint64_t b = 0; b < nblocks; ++b) {
    uint64_t size = 0;
    if (!get_u64(s, &pos, &size) || size > key.instructions) {
      *why = "bad block size";
      return Decoded::Corrupt;
    }
    Block block(size);
    for (uint64_t k = 0; k < size; ++k) {
      uint64_t i = 0;
      if (!get_u64(s, &pos, &i) || i > UINT32_MAX) {
        *why = "bad instruction index";
        return Decoded::Corrupt;
      }
      block[k] = static_cast<uint32_t>(i);
    }
    p.blocks.push_back(std::move(block));
  }
  if (pos != s.size() || !covers_batch(p, key.instructions)) {
    *why = "the partition does not cover the batch";
    return Decoded::Corrupt;
  }
  out->key = key;
  out->partition = std::move(p);
  out->provisional = (flags & kProvisionalFlag) != 0;
  out->foreign = stamp != rules_id;
  return Decoded::Ok;
}

}  // namespace

bool covers_batch(const Partition& p, std::size_t n) {
  std::vector<bool> seen(n, false);
  std::size_t count = 0;
  for (const Block& b : p.blocks) {
    if (b.empty()) return false;
    for (std::size_t k = 0; k < b.size(); ++k) {
      const uint32_t i = b[k];
      if (i >= n || seen[i] || (k > 0 && b[k - 1] >= i)) return false;
      seen[i] = true;
      ++count;
    }
  }
  return count == n;
}

// --- keys ---------------------------------------------------------------

MergeKeyBuilder::MergeKeyBuilder(const std::string& fuser, const std::string& cost, double time_limit,
                                 FusionRules rules) {
  header_.push_back(0x314b4d4d56525241ull);  // "ARRVMMK1"
  header_.push_back(kMergeKeyVersion);
  put_string(header_, fuser);
  put_string(header_, cost);
  header_.push_back(std::bit_cast<uint64_t>(time_limit));
  header_.push_back((rules.sweeps_alone ? 1 : 0) | (rules.row_nests ? 2 : 0));
}

inline uint32_t MergeKeyBuilder::rename(BaseId id) {
  const std::size_t mask = slots_.size() - 1;
  // A batch's bases are mostly ids issued close together: the low bits pick
  // the slot as they are (neighbouring ids, neighbouring slots: the table,
  // 16 bytes a slot and 8 slots an instruction, is larger than the caches
  // and a scattering hash missed them on every lookup), the bits above the
  // table's size are scrambled into it so that ids a multiple of the size
  // apart do not pile up in one run.
  const auto u = static_cast<uint64_t>(id);
  std::size_t i = static_cast<std::size_t>(u + ((u >> slot_bits_) * 0x9e3779b97f4a7c15ull >> 32)) & mask;
  while (true) {
    Slot& s = slots_[i];
    if (s.generation != generation_) {
      s = Slot{id, next_index_++, generation_};
      if (refs_.size() < next_index_) refs_.resize(2 * next_index_);
      refs_[s.index] = kNoRef;
      return s.index;
    }
    if (s.id == id) return s.index;
    i = (i + 1) & mask;
  }
}

namespace {

// One view's words at `w` (see the file comment); returns the end. `ref` is
// the offset of the first view of its base in the batch.
inline uint64_t* put_view_words(uint64_t* w, uint32_t base, int64_t ref, const View& v) {
  const int r = v.rank();
  *w++ = uint64_t{base} | uint64_t{static_cast<uint8_t>(v.dtype)} << 32 |
         uint64_t{static_cast<uint8_t>(r)} << 40;
  *w++ = static_cast<uint64_t>(v.offset - ref);
  for (int k = 0; k < r; ++k) *w++ = static_cast<uint64_t>(v.shape[k]);
  for (int k = 0; k < r; ++k) *w++ = static_cast<uint64_t>(v.stride[k]);
  return w;
}

}  // namespace

inline uint64_t* MergeKeyBuilder::put_view(uint64_t* w, const View& v) {
  const uint32_t base = rename(v.base);
  int64_t& ref = refs_[base];
  if (ref == kNoRef) ref = v.offset;
  return put_view_words(w, base, ref, v);
}

void MergeKeyBuilder::build(std::span<const Instruction> batch, MergeKey* key) {
  // At most 4 distinct bases per instruction; a table at most half full.
  const std::size_t want = std::bit_ceil(8 * batch.size() + 16);
  if (slots_.size() < want) {
    slots_.assign(want, Slot{});
    slot_bits_ = std::countr_zero(want);
    generation_ = 0;
  }
  if (++generation_ == 0) {  // wrapped: stale slots could look current
    std::fill(slots_.begin(), slots_.end(), Slot{});
    generation_ = 1;
  }
  next_index_ = 0;
  // The words go to a scratch buffer through a pointer (a push_back per
  // word cost more than the words), with room checked once an instruction
  // for the most one can take (its word, four views of kMaxRank), and are
  // then copied to the key.
  constexpr std::size_t kMaxWordsPerInstruction = 2 + 4 * (2 + 2 * kMaxRank);
  if (scratch_.size() < header_.size() + 1 + kMaxWordsPerInstruction) {
    scratch_.resize(header_.size() + 1 + 64 * kMaxWordsPerInstruction);
  }
  uint64_t* w = std::copy(header_.begin(), header_.end(), scratch_.data());
  *w++ = batch.size();
  for (const Instruction& in : batch) {
    if (static_cast<std::size_t>(scratch_.data() + scratch_.size() - w) < kMaxWordsPerInstruction) {
      const std::size_t used = static_cast<std::size_t>(w - scratch_.data());
      scratch_.resize(2 * scratch_.size());
      w = scratch_.data() + used;
    }
    // Bit 16: the instruction iterates over a length class (a word follows
    // naming it); ordinary instructions' words are as before length classes.
    const bool klass = in.length_class >= 0;
    *w++ = uint64_t{static_cast<uint8_t>(in.op)} | uint64_t{static_cast<uint8_t>(in.nin)} << 8 |
           uint64_t{klass} << 16 | uint64_t{static_cast<uint32_t>(in.axis)} << 32;
    if (klass) *w++ = rename(in.length_class);
    w = put_view(w, in.out);
    for (int k = 0; k < in.nin; ++k) {
      const Operand& o = in.in[k];
      if (o.is_const) {
        *w++ = kConstFlag | uint64_t{static_cast<uint8_t>(o.constant.dtype)} << 32;
      } else {
        w = put_view(w, o.view);
      }
    }
  }
  key->words.assign(scratch_.data(), w);
  key->instructions = static_cast<uint32_t>(batch.size());
  key->hash = hash_words(key->words);
}

// --- the cache ----------------------------------------------------------

MergeCache::MergeCache(CacheMode mode, const std::string& dir, uint64_t rules_id)
    : mode_(mode), rules_id_(rules_id) {
  if (mode_ == CacheMode::On) dir_ = open_cache_dir(dir, "merge", "merge cache");
}

MergeCache::~MergeCache() {
  if (on_disk()) drain_file_writes();  // what this cache stored is on disk when it is gone
}

std::string MergeCache::file_of(const MergeKey& key) const {
  if (dir_.empty()) return "";
  char name[64];
  std::snprintf(name, sizeof name, "%016llx-%llu.merge", static_cast<unsigned long long>(key.hash),
                static_cast<unsigned long long>(key.words.size()));
  return (std::filesystem::path(dir_) / name).string();
}

MergeEntry* MergeCache::find(const MergeKey& key, bool* from_disk) {
  if (from_disk != nullptr) *from_disk = false;
  if (!enabled()) {
    ++stats_.misses;
    return nullptr;
  }
  const auto it = index_.find(key.hash);
  if (it != index_.end() && it->second->key.words == key.words) {
    lru_.splice(lru_.begin(), lru_, it->second);
    ++stats_.memory_hits;
    return &lru_.front();
  }
  MergeEntry loaded;
  if (on_disk() && load_from_disk(key, &loaded)) {
    ++stats_.disk_hits;
    if (from_disk != nullptr) *from_disk = true;
    return insert(std::move(loaded));
  }
  ++stats_.misses;
  return nullptr;
}

MergeEntry* MergeCache::put(const MergeKey& key, Partition partition, bool provisional) {
  ARRVM_ASSERT(covers_batch(partition, key.instructions));
  if (!enabled()) return nullptr;
  if (on_disk()) store_to_disk(key, partition, provisional);
  MergeEntry e;
  e.key = key;
  e.partition = std::move(partition);
  e.provisional = provisional;
  return insert(std::move(e));
}

uint64_t new_structure_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

MergeEntry* MergeCache::insert(MergeEntry entry) {
  entry.partition.structure = new_structure_id();  // (a replaced partition gets a new id)
  entry.bytes = entry_bytes(entry.key, entry.partition);
  const auto it = index_.find(entry.key.hash);
  if (it != index_.end()) {  // the same key (replaced) or a colliding one (dropped)
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  bytes_ += entry.bytes;
  lru_.push_front(std::move(entry));
  index_[lru_.front().key.hash] = lru_.begin();
  evict();
  return &lru_.front();
}

void MergeCache::evict() {
  while (lru_.size() > 1 && (lru_.size() > kMaxEntries || bytes_ > kMaxBytes)) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key.hash);
    lru_.pop_back();
    ++stats_.evictions;
  }
}

void MergeCache::erase(const MergeKey& key) {
  const auto it = index_.find(key.hash);
  if (it != index_.end() && it->second->key.words == key.words) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (on_disk()) remove_file_later(file_of(key));  // (after a write of it still pending)
}

bool MergeCache::load_from_disk(const MergeKey& key, MergeEntry* out) {
  const std::string file = file_of(key);
  std::string data;
  std::string why;
  bool known = false;  // a write or removal of it this process has not finished
  const std::optional<std::string> later = pending_file(file, &known);
  if (known && !later) return false;
  if (later) data = *later;
  const DiskEntry read = known ? DiskEntry::Hit : read_cache_file(file, &data);
  if (read == DiskEntry::Absent) return false;
  if (read == DiskEntry::Corrupt) data.clear(), why = "not a regular file of this user, or too large";
  switch (read == DiskEntry::Corrupt ? Decoded::Corrupt : decode(data, key, rules_id_, out, &why)) {
    case Decoded::Ok:
      if (out->foreign) ++stats_.foreign;
      return true;
    case Decoded::OtherKey:
      return false;  // a hash collision: the store below replaces it
    case Decoded::OtherFormat:
      logger().debug("merge cache: {} is of an earlier format; the partition will be recomputed", file);
      return false;  // the store below replaces it
    case Decoded::Corrupt:
      break;
  }
  ++stats_.corrupt;
  logger().warn("merge cache: ignoring {}: {}; removed, the partition will be recomputed", file, why);
  std::error_code ec;
  std::filesystem::remove(file, ec);
  return false;
}

void MergeCache::store_to_disk(const MergeKey& key, const Partition& partition, bool provisional) {
  if (!on_disk()) return;
  // On the writer's thread: the flush that missed does not wait for the file system.
  write_file_later(file_of(key), encode(key, partition, provisional, rules_id_));
  ++stats_.disk_writes;
}

}  // namespace arrvm
