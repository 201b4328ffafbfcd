// Decoding helpers shared by the decoder's tests.
#pragma once

#include <catch2/catch.hpp>

#include <string_view>

#include "model/decode.h"

namespace loadshift::testing {

// Decodes `json` in one piece and requires it to be clean.
inline model::Snapshot decode_clean(std::string_view json) {
  model::Snapshot snapshot;
  model::DecodeSummary summary = model::decode_json(json, &snapshot);
  for (const model::DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  return snapshot;
}

// Feeds `json` to one decoder in pieces of `chunk` bytes.
inline model::DecodeSummary decode_in_chunks(std::string_view json, size_t chunk,
                                             model::Snapshot* snapshot) {
  model::JsonSnapshotDecoder decoder(snapshot);
  for (size_t at = 0; at < json.size(); at += chunk) decoder.feed(json.substr(at, chunk));
  return decoder.finish();
}

}  // namespace loadshift::testing
