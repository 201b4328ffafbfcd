// The fake API server's protobuf answers: stored JSON objects encoded as the API server's
// protobuf serializer writes them: the "k8s\0" prefix, a runtime.Unknown with the kind and the
// object's bytes. Pods and Nodes carry every field of their JSON in the API's own messages (those
// of a real build, test/data/kube-proto/kubectl-descriptors.binpb), the ones loadshift's decoder
// skips included; not the empty strings and zeros Go also writes for fields the JSON omits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace loadshift::testing {

// True when an Accept header asks for Kubernetes protobuf before JSON (as client-go's
// "application/vnd.kubernetes.protobuf, application/json").
bool prefers_protobuf(std::string_view accept);

// True for the kinds the fake answers in protobuf: core/v1 Pods and Nodes.
bool protobuf_kind(std::string_view api_version, std::string_view kind);

// The message bytes of a Pod or Node given as JSON. Throws std::invalid_argument naming the
// field when the JSON does not fit the message (a string where a list belongs).
std::string encode_protobuf_object(const nlohmann::json& object, std::string_view kind);

// A whole answer: "k8s\0" + Unknown{typeMeta{apiVersion, kind}, raw}.
std::string protobuf_envelope(std::string_view api_version, std::string_view kind,
                              std::string_view raw);

// The raw bytes of a list (PodList, NodeList): its ListMeta, then each item's message bytes.
std::string protobuf_list_raw(const std::string& resource_version,
                              const std::string& continue_token,
                              std::optional<int64_t> remaining_items,
                              const std::vector<const std::string*>& items);

// A metav1.Status (JSON) as a protobuf answer.
std::string protobuf_status(const nlohmann::json& status);

// The Content-Type of a protobuf watch stream, as the API server writes it.
inline constexpr std::string_view kProtobufWatchContentType =
    "application/vnd.kubernetes.protobuf;stream=watch";

// One event of a watch stream, given as its JSON line ({"type", "object"}), as a protobuf watch
// frame: a 4-byte big-endian length, then a metav1.WatchEvent whose object (a RawExtension)
// holds the object's whole protobuf answer (an ERROR's: its Status).
std::string protobuf_watch_frame(std::string_view json_line, std::string_view api_version,
                                 std::string_view kind);
// A frame of an event `type` whose object's whole protobuf answer (envelope and all) is given.
std::string protobuf_watch_frame_of(std::string_view type, std::string_view object_answer);
// `body` after its 4-byte big-endian length: a frame of a protobuf watch stream.
std::string protobuf_frame(std::string_view body);

}  // namespace loadshift::testing
