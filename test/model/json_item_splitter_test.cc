// The list splitter cuts out exactly the items, whatever they hold and however the bytes arrive.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "model/json_item_splitter.h"

using namespace loadshift::model;

namespace {

struct Recorder : JsonItemSplitter::Listener {
  std::vector<std::string> items;
  std::vector<uint64_t> offsets;
  std::vector<std::pair<std::string, std::string>> strings;

  void on_item(const PaddedBuffer& item, size_t index, uint64_t offset) override {
    CHECK(index == items.size());
    items.emplace_back(item.view());
    offsets.push_back(offset);
    // The padding after the item is zeros.
    const char* padding = item.data() + item.size();
    CHECK(std::all_of(padding, padding + kJsonPadding, [](char c) { return c == '\0'; }));
  }
  void on_top_level_string(std::string_view key, std::string_view raw_value) override {
    strings.emplace_back(key, raw_value);
  }
};

// Items whose strings hold brackets, escaped quotes and backslashes, placed at every alignment
// against the splitter's 64-byte blocks by a growing run of spaces in front of each.
std::vector<std::string> tricky_items() {
  std::vector<std::string> items;
  for (int shift = 0; shift < 70; ++shift) {
    std::string item = "{\"a\": \"" + std::string(static_cast<size_t>(shift), 'x') +
                       "{[\\\"}]\\\\\", \"b\": [1, {\"c\": \"]}\"}, [[]]], \"d\": {}}";
    items.push_back(item);
  }
  items.push_back("\"a string item with } and \\\" inside\"");
  items.push_back("12.5e3");
  items.push_back("[{\"x\": \"" + std::string(200, '\\') + "\"}]");
  items.push_back("{\"long\": \"" + std::string(300, 'y') + "\\\\\"}");
  return items;
}

std::string document_of(const std::vector<std::string>& items) {
  std::string json = "{\"apiVersion\": \"v1\", \"items\": [";
  for (size_t i = 0; i < items.size(); ++i) {
    json += i == 0 ? "\n" : ",\n";
    json += std::string(i % 67, ' ');
    json += items[i];
  }
  json += "], \"kind\": \"Li\\\"st\", \"metadata\": {\"x\": [\"]\"]}}";
  return json;
}

}  // namespace

TEST_CASE("the splitter cuts out every item exactly, in any chunking", "[decode][splitter]") {
  const std::vector<std::string> items = tricky_items();
  const std::string json = document_of(items);
  for (size_t chunk :
       {size_t{1}, size_t{2}, size_t{63}, size_t{64}, size_t{65}, size_t{1000}, json.size()}) {
    INFO("chunk " << chunk);
    Recorder recorder;
    JsonItemSplitter splitter(&recorder);
    for (size_t at = 0; at < json.size(); at += chunk) {
      REQUIRE(splitter.feed(std::string_view(json).substr(at, chunk)));
    }
    REQUIRE(splitter.finish());
    CHECK(splitter.has_items());
    REQUIRE(recorder.items == items);
    for (size_t i = 0; i < items.size(); ++i) {
      CHECK(json.compare(recorder.offsets[i], items[i].size(), items[i]) == 0);
    }
    CHECK(recorder.strings == std::vector<std::pair<std::string, std::string>>{
                                  {"apiVersion", "v1"}, {"kind", "Li\\\"st"}});
    CHECK(splitter.top_level().view() ==
          "{\"apiVersion\": \"v1\", \"items\": [], \"kind\": \"Li\\\"st\", \"metadata\": "
          "{\"x\": [\"]\"]}}");
  }
}

TEST_CASE("a single object is kept whole as the top level", "[decode][splitter]") {
  const std::string json = " {\"kind\": \"Pod\", \"spec\": {\"items\": [1, 2]}, \"n\": null} \n";
  Recorder recorder;
  JsonItemSplitter splitter(&recorder);
  REQUIRE(splitter.feed(json));
  REQUIRE(splitter.finish());
  CHECK_FALSE(splitter.has_items());
  CHECK(recorder.items.empty());
  CHECK(splitter.top_level().view() == json);
}

TEST_CASE("the splitter reports where the outer document breaks", "[decode][splitter]") {
  struct Case {
    const char* json;
    uint64_t offset;
    const char* error;
  };
  const Case cases[] = {
      {"{\"items\": [{}] ]", 15,
       "expected ',' or '}' after the top-level member \"items\", found ']'"},
      {"{\"items\": [{},, {}]}", 14, "expected items[1], found ','"},
      {"{\"items\": [{}, ]}", 15, "expected items[1], found ']'"},
      {"{\"items\": [{} {}]}", 14, "expected ',' or ']' after items[0], found '{'"},
      {"{\"a\" 1}", 5, "expected ':' after the member name \"a\", found '1'"},
      {"{\"a\": }", 6, "expected a value for \"a\", found '}'"},
      {"{,}", 1, "expected a member name in the top-level object, found ','"},
      {"\x01", 0, "expected '{' to start the document, found byte 0x01"},
      {"{\"items\": [{\"a\": \"}", 19, "unexpected end of the document inside items[0]"},
      {"{\"a\": \"b", 8, "unexpected end of the document inside the top-level object"},
  };
  for (const Case& c : cases) {
    INFO(c.json);
    Recorder recorder;
    JsonItemSplitter splitter(&recorder);
    bool fed = splitter.feed(c.json);
    bool finished = fed && splitter.finish();
    CHECK_FALSE(finished);
    CHECK(splitter.error() == c.error);
    CHECK(splitter.error_offset() == c.offset);
    CHECK_FALSE(splitter.feed("{}"));  // stays failed
  }
}
