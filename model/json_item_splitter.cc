#include "model/json_item_splitter.h"

#include <algorithm>
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace loadshift::model {
namespace {

bool is_whitespace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

const char* skip_whitespace(const char* p, const char* end) {
  while (p < end && is_whitespace(*p)) ++p;
  return p;
}

bool starts_value(char c) {
  return c == '"' || c == '{' || c == '[' || c == '-' || (c >= '0' && c <= '9') || c == 't' ||
         c == 'f' || c == 'n';
}

// "'x'" for a printable byte, "byte 0x07" otherwise: for messages.
std::string describe_byte(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 0xf];
}

// The first '"' or '\\' in [p, end), or end.
const char* find_string_special(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int mask = _mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(block, quote), _mm_cmpeq_epi8(block, backslash)));
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// The first '"', '{', '[', '}' or ']' in [p, end), or end. Setting bit 0x20 maps '[' to '{' and
// ']' to '}' and no other byte onto either, so two compares find all four brackets.
const char* find_structural(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  while (end - p >= 16) {
    __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i folded = _mm_or_si128(block, case_bit);
    __m128i hits =
        _mm_or_si128(_mm_cmpeq_epi8(block, quote),
                     _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    int mask = _mm_movemask_epi8(hits);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  while (p < end) {
    char folded = static_cast<char>(*p | 0x20);
    if (*p == '"' || folded == '{' || folded == '}') return p;
    ++p;
  }
  return p;
}

constexpr ptrdiff_t kBlockSize = 64;

// Where the bytes of a 64-byte block are quotes, backslashes, '{' or '[', and '}' or ']'.
struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t open = 0;
  uint64_t close = 0;
};

BlockMasks classify_block(const char* p) {
  BlockMasks masks;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i case_bit = _mm_set1_epi8(0x20);
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  for (int lane = 0; lane < 4; ++lane) {
    __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * lane));
    __m128i folded = _mm_or_si128(block, case_bit);
    auto bits = [&](__m128i hits) {
      return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(hits))) << (16 * lane);
    };
    masks.quote |= bits(_mm_cmpeq_epi8(block, quote));
    masks.backslash |= bits(_mm_cmpeq_epi8(block, backslash));
    masks.open |= bits(_mm_cmpeq_epi8(folded, open));
    masks.close |= bits(_mm_cmpeq_epi8(folded, close));
  }
#else
  for (int i = 0; i < kBlockSize; ++i) {
    uint64_t bit = uint64_t{1} << i;
    char folded = static_cast<char>(p[i] | 0x20);
    if (p[i] == '"') masks.quote |= bit;
    if (p[i] == '\\') masks.backslash |= bit;
    if (folded == '{') masks.open |= bit;
    if (folded == '}') masks.close |= bit;
  }
#endif
  return masks;
}

// Bit i of the result is the XOR of bits 0..i of `bits`: with quote positions in, the bytes
// from an opening quote up to (not including) its closing quote.
uint64_t prefix_xor(uint64_t bits) {
  bits ^= bits << 1;
  bits ^= bits << 2;
  bits ^= bits << 4;
  bits ^= bits << 8;
  bits ^= bits << 16;
  bits ^= bits << 32;
  return bits;
}

}  // namespace

// ---- PaddedBuffer -------------------------------------------------------------------------

void PaddedBuffer::append(const char* bytes, size_t count) {
  if (count == 0) return;
  if (size_ + count > capacity_) {
    size_t capacity = std::max<size_t>({size_ + count, capacity_ * 2, 4096});
    auto grown = std::make_unique<char[]>(capacity + kJsonPadding);
    if (size_ != 0) std::memcpy(grown.get(), bytes_.get(), size_);
    bytes_ = std::move(grown);
    capacity_ = capacity;
  }
  std::memcpy(bytes_.get() + size_, bytes, count);
  size_ += count;
  std::memset(bytes_.get() + size_, 0, kJsonPadding);
}

void PaddedBuffer::clear() {
  size_ = 0;
  if (bytes_) std::memset(bytes_.get(), 0, kJsonPadding);
}

// ---- ValueScan ----------------------------------------------------------------------------

void JsonItemSplitter::ValueScan::start(char first) {
  in_string = first == '"';
  escape_pending = false;
  if (first == '"') {
    shape = Shape::kString;
    depth = 0;
  } else if (first == '{' || first == '[') {
    shape = Shape::kContainer;
    depth = 1;
  } else {
    shape = Shape::kLiteral;
    depth = 0;
  }
}

const char* JsonItemSplitter::ValueScan::resume(const char* p, const char* end) {
  if (shape == Shape::kLiteral) {
    while (p < end) {
      char c = *p;
      if (c == ',' || c == '}' || c == ']' || is_whitespace(c)) return p;
      ++p;
    }
    return nullptr;
  }
  if (escape_pending) {
    if (p == end) return nullptr;
    escape_pending = false;
    ++p;
  }
  while (p < end) {
    if (shape == Shape::kContainer && !in_string) {
      p = skip_blocks(p, end);
      if (depth == 0) return p;
    }
    // One block byte by byte: it holds a backslash, or it is what is left of the chunk.
    const char* stop = end - p > kBlockSize ? p + kBlockSize : end;
    bool complete = false;
    p = scan_bytes(p, stop, end, complete);
    if (complete) return p;
    if (escape_pending) return nullptr;
  }
  return nullptr;
}

const char* JsonItemSplitter::ValueScan::scan_bytes(const char* p, const char* stop,
                                                    const char* end, bool& complete) {
  while (p < stop) {
    if (in_string) {
      p = find_string_special(p, stop);
      if (p == stop) return p;
      if (*p == '\\') {
        if (end - p < 2) {
          escape_pending = true;
          return end;
        }
        p += 2;
        continue;
      }
      in_string = false;
      ++p;
      if (depth == 0) {
        complete = true;
        return p;
      }
      continue;
    }
    p = find_structural(p, stop);
    if (p == stop) return p;
    char c = *p++;
    if (c == '"') {
      in_string = true;
    } else if ((c | 0x20) == '{') {
      ++depth;
    } else if (--depth == 0) {
      complete = true;
      return p;
    }
  }
  return p;
}

const char* JsonItemSplitter::ValueScan::skip_blocks(const char* p, const char* end) {
  uint64_t string_carry = 0;  // all ones when the previous block ended inside a string
  while (end - p >= kBlockSize) {
    BlockMasks masks = classify_block(p);
    if (masks.backslash != 0) break;
    uint64_t inside = prefix_xor(masks.quote) ^ string_carry;
    uint64_t opens = masks.open & ~inside;
    uint64_t closes = masks.close & ~inside;
    for (uint64_t brackets = opens | closes; brackets != 0; brackets &= brackets - 1) {
      int at = std::countr_zero(brackets);
      if ((opens >> at) & 1) {
        ++depth;
      } else if (--depth == 0) {
        in_string = false;
        return p + at + 1;
      }
    }
    string_carry = 0 - (inside >> 63);
    p += kBlockSize;
  }
  in_string = string_carry != 0;
  return p;
}

// ---- JsonItemSplitter ---------------------------------------------------------------------

JsonItemSplitter::JsonItemSplitter(Listener* listener) : listener_(listener) {}

bool JsonItemSplitter::feed(std::string_view bytes) {
  if (state_ == State::kFailed) return false;
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  chunk_begin_ = p;
  bool in_items =
      state_ == State::kBeforeItem || state_ == State::kInItem || state_ == State::kAfterItem;
  copy_from_ = in_items ? nullptr : p;
  item_from_ = p;
  while (p < end && state_ != State::kFailed) p = step(p, end);
  if (state_ == State::kFailed) return false;
  flush_top_level(end);
  if (state_ == State::kInItem) item_.append(item_from_, static_cast<size_t>(end - item_from_));
  consumed_ += bytes.size();
  return true;
}

bool JsonItemSplitter::finish() {
  switch (state_) {
    case State::kFailed:
      return false;
    case State::kAfterDocument:
      return true;
    case State::kBeforeDocument:
      error_ = "empty document: expected a JSON object";
      break;
    case State::kBeforeItem:
    case State::kInItem:
    case State::kAfterItem:
      error_ = "unexpected end of the document inside items[" + std::to_string(item_index_) + "]";
      break;
    default:
      error_ = "unexpected end of the document inside the top-level object";
      break;
  }
  error_offset_ = consumed_;
  state_ = State::kFailed;
  return false;
}

bool JsonItemSplitter::fail(std::string message, const char* at) {
  error_ = std::move(message);
  error_offset_ = consumed_ + static_cast<uint64_t>(at - chunk_begin_);
  state_ = State::kFailed;
  return false;
}

void JsonItemSplitter::flush_top_level(const char* upto) {
  if (copy_from_ == nullptr || upto <= copy_from_) return;
  top_level_.append(copy_from_, static_cast<size_t>(upto - copy_from_));
  copy_from_ = upto;
}

const char* JsonItemSplitter::step(const char* p, const char* end) {
  switch (state_) {
    case State::kBeforeItem:
    case State::kInItem:
    case State::kAfterItem:
      return step_items(p, end);
    default:
      return step_top_level(p, end);
  }
}

const char* JsonItemSplitter::step_top_level(const char* p, const char* end) {
  if (state_ == State::kInKey) {
    const char* past = scan_.resume(p, end);
    if (past == nullptr) {
      key_.append(p, static_cast<size_t>(end - p));
      return end;
    }
    key_.append(p, static_cast<size_t>(past - 1 - p));
    key_is_items_ = key_ == "items";
    state_ = State::kAfterKey;
    return past;
  }
  if (state_ == State::kInValue) {
    const char* past = scan_.resume(p, end);
    if (past == nullptr) return end;
    state_ = State::kAfterValue;
    if (scan_.shape == ValueScan::Shape::kString) {
      flush_top_level(past);
      std::string_view value = top_level_.view().substr(value_start_ + 1);
      value.remove_suffix(1);
      listener_->on_top_level_string(key_, value);
    }
    return past;
  }

  p = skip_whitespace(p, end);
  if (p == end) return end;
  char c = *p;
  switch (state_) {
    case State::kBeforeDocument:
      if (c != '{') {
        fail("expected '{' to start the document, found " + describe_byte(c), p);
        return end;
      }
      state_ = State::kBeforeKey;
      first_entry_ = true;
      return p + 1;
    case State::kBeforeKey:
      if (c == '"') {
        key_.clear();
        scan_.start(c);
        state_ = State::kInKey;
        return p + 1;
      }
      if (c == '}' && first_entry_) {
        state_ = State::kAfterDocument;
        return p + 1;
      }
      fail("expected a member name in the top-level object, found " + describe_byte(c), p);
      return end;
    case State::kAfterKey:
      if (c != ':') {
        fail("expected ':' after the member name \"" + key_ + "\", found " + describe_byte(c), p);
        return end;
      }
      state_ = State::kBeforeValue;
      return p + 1;
    case State::kBeforeValue:
      if (c == '[' && key_is_items_) {
        flush_top_level(p + 1);
        copy_from_ = nullptr;
        has_items_ = true;
        first_entry_ = true;
        state_ = State::kBeforeItem;
        return p + 1;
      }
      if (!starts_value(c)) {
        fail("expected a value for \"" + key_ + "\", found " + describe_byte(c), p);
        return end;
      }
      value_start_ = top_level_.size() + static_cast<size_t>(p - copy_from_);
      scan_.start(c);
      state_ = State::kInValue;
      return scan_.shape == ValueScan::Shape::kLiteral ? p : p + 1;
    case State::kAfterValue:
      if (c == ',') {
        first_entry_ = false;
        state_ = State::kBeforeKey;
        return p + 1;
      }
      if (c == '}') {
        state_ = State::kAfterDocument;
        return p + 1;
      }
      fail("expected ',' or '}' after the top-level member \"" + key_ + "\", found " +
               describe_byte(c),
           p);
      return end;
    case State::kAfterDocument:
      fail("unexpected " + describe_byte(c) + " after the end of the document", p);
      return end;
    default:
      return end;
  }
}

const char* JsonItemSplitter::step_items(const char* p, const char* end) {
  if (state_ == State::kInItem) {
    const char* past = scan_.resume(p, end);
    if (past == nullptr) return end;
    item_.append(item_from_, static_cast<size_t>(past - item_from_));
    listener_->on_item(item_, item_index_++, item_offset_);
    item_.clear();
    state_ = State::kAfterItem;
    return past;
  }
  p = skip_whitespace(p, end);
  if (p == end) return end;
  char c = *p;
  if (state_ == State::kBeforeItem) {
    if (c == ']' && first_entry_) {
      copy_from_ = p;
      state_ = State::kAfterValue;
      return p + 1;
    }
    if (!starts_value(c)) {
      fail("expected items[" + std::to_string(item_index_) + "], found " + describe_byte(c), p);
      return end;
    }
    item_.clear();
    item_from_ = p;
    item_offset_ = consumed_ + static_cast<uint64_t>(p - chunk_begin_);
    scan_.start(c);
    state_ = State::kInItem;
    return scan_.shape == ValueScan::Shape::kLiteral ? p : p + 1;
  }
  // kAfterItem
  if (c == ',') {
    first_entry_ = false;
    state_ = State::kBeforeItem;
    return p + 1;
  }
  if (c == ']') {
    copy_from_ = p;
    state_ = State::kAfterValue;
    return p + 1;
  }
  fail("expected ',' or ']' after items[" + std::to_string(item_index_ - 1) + "], found " +
           describe_byte(c),
       p);
  return end;
}

}  // namespace loadshift::model
