// One Pod or Node, as the API server encodes it in protobuf, into the model: read from the wire
// straight into the model (model/protobuf_wire.h), with the same fields, defaults and checks as
// the JSON decoder (model/kube_json_kinds.h), so an object reads the same in either encoding
// (test/model/protobuf_decode_test.cc compares them). Fields loadshift does not read are
// skipped by their length, never parsed.
//
// Internal to model/protobuf_decode.cc, which takes the objects out of their envelope and lists.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "model/protobuf_fields.h"

namespace loadshift::model::pb {

// Each reads the bytes of one message (a Pod, a Node) and returns false when they are malformed
// or hold what the model refuses (an unknown enum name, a bad quantity, no name): `failure` then
// says where and why, and `out` is to be dropped.
bool read_pod(std::string_view message, Pod& out, Failure& failure);
bool read_node(std::string_view message, Node& out, Failure& failure);

// A Pod's status message into `pod` (model/protobuf_pod_status.cc).
bool read_pod_status(std::string_view bytes, Pod& pod, Failure& failure);

}  // namespace loadshift::model::pb
