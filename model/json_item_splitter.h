// Cuts a streamed JSON document into the elements of its top-level "items" array.
//
// Internal to the decoder (model/decode.cc). A Kubernetes list is one JSON object whose
// "items" array holds nearly all of its bytes. JsonItemSplitter scans the bytes as they arrive
// with a small string- and escape-aware state machine that tracks bracket depth, copies each
// element of "items" into a reusable buffer and hands it to a listener as soon as it is complete.
// Everything else of the top-level object (kind, apiVersion, metadata, or a whole single object)
// is kept in a second buffer. The splitter never parses what it cuts out: a complete element is
// only "balanced brackets outside strings"; the listener's JSON parser checks the rest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace loadshift::model {

// Zero bytes kept after the contents of a PaddedBuffer: what simdjson needs (SIMDJSON_PADDING).
inline constexpr size_t kJsonPadding = 64;

// A growable byte buffer that always keeps kJsonPadding zero bytes after its contents, so a JSON
// parser may read past the end. Not copyable.
class PaddedBuffer {
 public:
  PaddedBuffer() = default;
  PaddedBuffer(const PaddedBuffer&) = delete;
  PaddedBuffer& operator=(const PaddedBuffer&) = delete;

  void append(const char* bytes, size_t count);
  // Forgets the contents; keeps the memory for the next use.
  void clear();

  const char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::string_view view() const { return {bytes_.get(), size_}; }

 private:
  std::unique_ptr<char[]> bytes_;
  size_t size_ = 0;
  size_t capacity_ = 0;  // without the padding
};

class JsonItemSplitter {
 public:
  class Listener {
   public:
    virtual ~Listener() = default;
    // A complete element of the top-level "items" array: `item` holds its bytes (padded),
    // `index` its position in the array, `offset` the document offset of its first byte. The
    // buffer is reused once this returns.
    virtual void on_item(const PaddedBuffer& item, size_t index, uint64_t offset) = 0;
    // A top-level member whose value is a string, e.g. ("kind", "PodList"). `raw_value` is the
    // text between the quotes, escapes not decoded. Called as soon as the value is complete.
    virtual void on_top_level_string(std::string_view key, std::string_view raw_value) = 0;
  };

  // `listener` must outlive the splitter.
  explicit JsonItemSplitter(Listener* listener);
  JsonItemSplitter(const JsonItemSplitter&) = delete;
  JsonItemSplitter& operator=(const JsonItemSplitter&) = delete;

  // Scans the next bytes of the document, calling the listener for every item they complete.
  // Returns false once the document is known to be malformed (see error()); later calls then do
  // nothing and return false.
  bool feed(std::string_view bytes);
  // Ends the document. Returns false when it is malformed, empty or incomplete (see error()).
  bool finish();
  // Stops scanning for good, e.g. when the listener found an item to be broken JSON: the rest of
  // the document is ignored, and feed() and finish() return false with an empty error().
  void abandon() { state_ = State::kFailed; }

  // Why the document is malformed, and the offset of the offending byte.
  const std::string& error() const { return error_; }
  uint64_t error_offset() const { return error_offset_; }

  // True when the top-level object had an "items" array (the document is a list).
  bool has_items() const { return has_items_; }
  // The top-level object as written, with the elements of "items" left out (`"items": []`).
  // For a document that is a single object this is the object.
  const PaddedBuffer& top_level() const { return top_level_; }

 private:
  enum class State : uint8_t {
    kBeforeDocument,  // expecting '{'
    kBeforeKey,       // in the top-level object, expecting a key (or '}' when empty)
    kInKey,           // inside a top-level key string
    kAfterKey,        // expecting ':'
    kBeforeValue,     // expecting a top-level value
    kInValue,         // inside a top-level value other than "items"
    kAfterValue,      // expecting ',' or '}'
    kBeforeItem,      // in "items", expecting an element (or ']' when empty)
    kInItem,          // inside an element of "items"
    kAfterItem,       // expecting ',' or ']'
    kAfterDocument,   // only whitespace may follow
    kFailed,
  };

  // Progress through one JSON value whose bytes may span several chunks.
  struct ValueScan {
    enum class Shape : uint8_t { kString, kContainer, kLiteral };
    Shape shape = Shape::kLiteral;
    bool in_string = false;
    bool escape_pending = false;  // a backslash ended the previous chunk
    uint64_t depth = 0;

    void start(char first);
    // Scans from `p`; returns the position just past the value, or nullptr when the value goes
    // on past `end`.
    const char* resume(const char* p, const char* end);

   private:
    // Byte by byte up to `stop` (an escape may carry it a byte further); sets `complete` and
    // returns the position past the value when it ends there.
    const char* scan_bytes(const char* p, const char* stop, const char* end, bool& complete);
    // Outside strings in a container: whole 64-byte blocks at a time, with bit masks, until a
    // block holds a backslash or less than a block is left. depth 0 on return: the value ended.
    const char* skip_blocks(const char* p, const char* end);
  };

  const char* step(const char* p, const char* end);
  const char* step_top_level(const char* p, const char* end);
  const char* step_items(const char* p, const char* end);
  void flush_top_level(const char* upto);
  bool fail(std::string message, const char* at);

  Listener* listener_;
  State state_ = State::kBeforeDocument;
  ValueScan scan_;
  bool first_entry_ = true;  // no member / element yet in the current object or array
  bool has_items_ = false;
  bool key_is_items_ = false;
  std::string key_;         // current top-level key, raw
  size_t value_start_ = 0;  // offset in top_level_ where the current top-level value starts
  size_t item_index_ = 0;
  uint64_t item_offset_ = 0;
  uint64_t consumed_ = 0;  // document offset of the current chunk's first byte
  const char* chunk_begin_ = nullptr;
  const char* copy_from_ = nullptr;  // start of the bytes of this chunk not yet in top_level_
  const char* item_from_ = nullptr;  // start of the bytes of this chunk not yet in item_
  PaddedBuffer item_;
  PaddedBuffer top_level_;
  std::string error_;
  uint64_t error_offset_ = 0;
};

}  // namespace loadshift::model
