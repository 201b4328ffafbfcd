// Bad input gives errors that name the object, the field path and what was expected; a bad
// object is left out and decoding goes on; broken JSON stops the decoding with its byte offset.
#include <catch2/catch.hpp>

#include <string>

#include "model/decode.h"

using namespace loadshift::model;
using Catch::Contains;

namespace {

// Decodes `json` and requires exactly one error; returns it.
DecodeError only_error(std::string_view json, Snapshot* snapshot = nullptr) {
  Snapshot local;
  DecodeSummary summary = decode_json(json, snapshot != nullptr ? snapshot : &local);
  for (const DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.errors.size() == 1);
  return summary.errors[0];
}

// A v1 List of `items` (JSON objects separated by commas).
std::string list_of(std::string_view items) {
  return R"({"apiVersion": "v1", "kind": "List", "items": [)" + std::string(items) + "]}";
}

}  // namespace

TEST_CASE("malformed JSON in the outer document stops decoding at its byte offset",
          "[decode][errors]") {
  DecodeError trailing_comma = only_error(R"({"kind": "List", "items": [], })");
  CHECK(trailing_comma.object == "document");
  CHECK(trailing_comma.path.empty());
  CHECK(trailing_comma.message ==
        "malformed JSON at byte 30: expected a member name in the top-level object, found '}'");

  DecodeError truncated = only_error(R"({"kind": "List", "items": [{"kind": "Pod")");
  CHECK(truncated.object == "document");
  CHECK(truncated.message ==
        "malformed JSON at byte 41: unexpected end of the document inside items[0]");

  DecodeError not_an_object = only_error("[1, 2]");
  CHECK(not_an_object.message ==
        "malformed JSON at byte 0: expected '{' to start the document, found '['");

  DecodeError empty = only_error("  \n");
  CHECK(empty.message == "malformed JSON at byte 3: empty document: expected a JSON object");

  DecodeError garbage_after = only_error(R"({"kind": "NodeList", "items": []} x)");
  CHECK(garbage_after.message ==
        "malformed JSON at byte 34: unexpected 'x' after the end of the document");

  DecodeError missing_comma = only_error(R"({"kind": "List" "items": []})");
  CHECK(missing_comma.message ==
        "malformed JSON at byte 16: expected ',' or '}' after the top-level member \"kind\", "
        "found '\"'");
}

TEST_CASE("malformed JSON inside a list item stops decoding and names the item",
          "[decode][errors]") {
  Snapshot snapshot;
  std::string json = list_of(R"({"kind": "Node", "metadata": {"name": "ok"}},
    {"kind": "Node", "metadata": {"name": "bad", "labels": {"a": tru}}},
    {"kind": "Node", "metadata": {"name": "after"}})");
  DecodeSummary summary = decode_json(json, &snapshot);
  REQUIRE(summary.errors.size() == 1);
  const DecodeError& error = summary.errors[0];
  CHECK(error.object == "document");
  CHECK(error.path == "items[1]");
  CHECK_THAT(error.message, Contains("malformed JSON at byte "));
  // The offset points into the second item, which starts after the first one.
  size_t item_start = json.find(R"({"kind": "Node", "metadata": {"name": "bad")");
  size_t offset = std::stoul(error.message.substr(std::string("malformed JSON at byte ").size()));
  CHECK(offset >= item_start);
  CHECK(offset <= json.find("tru}"));
  REQUIRE(snapshot.nodes.size() == 1);  // the items after it are not decoded
  CHECK(snapshot.nodes[0].meta.name == "ok");
  CHECK(summary.objects == 1);
}

TEST_CASE("valid JSON numbers that fit no integer are the wrong type, not broken JSON",
          "[decode][errors]") {
  DecodeError huge = only_error(R"({"kind": "Pod", "metadata": {"name": "p"},
    "spec": {"priority": 99999999999999999999}})");
  CHECK(huge.object == "Pod default/p");
  CHECK(huge.path == "spec.priority");
  CHECK(huge.message == "expected a 32-bit integer, found the number 99999999999999999999");
  DecodeError overflow =
      only_error(R"({"kind": "Pod", "metadata": {"name": "p", "labels": {"a": 1e400}}})");
  CHECK(overflow.path == "metadata.labels.a");
  CHECK(overflow.message == "expected a string, found the number 1e400");

  // Leading zeros, a bare "1." and "tru" are not JSON.
  for (std::string_view broken :
       {R"({"kind": "Pod", "metadata": {"name": "p"}, "spec": {"priority": 01}})",
        R"({"kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": 1.}}})",
        R"({"kind": "Node", "metadata": {"name": "n"}, "spec": {"unschedulable": tru}})",
        R"({"kind": "Node", "metadata": {"name": "n", "labels": {"a": fals}}})"}) {
    INFO(broken);
    DecodeError error = only_error(broken);
    CHECK(error.object == "document");
    CHECK_THAT(error.message, Contains("malformed JSON at byte "));
  }
}

TEST_CASE("a field of the wrong type rejects its object, and decoding goes on",
          "[decode][errors]") {
  Snapshot snapshot;
  // kubectl sorts "labels" before "name": the error still names the pod.
  DecodeSummary summary = decode_json(list_of(R"(
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"app": "web", "version": 5},
     "name": "web-1", "namespace": "shop"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-2", "namespace": "shop"}})"),
                                      &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].object == "Pod shop/web-1");
  CHECK(summary.errors[0].path == "metadata.labels.version");
  CHECK(summary.errors[0].message == "expected a string, found the number 5");
  CHECK(summary.errors[0].to_string() ==
        "Pod shop/web-1: metadata.labels.version: expected a string, found the number 5");
  CHECK(summary.objects == 1);
  REQUIRE(snapshot.pods.size() == 1);
  CHECK(snapshot.pods[0].meta.name == "web-2");
}

TEST_CASE("wrong types are reported with the path and what was found", "[decode][errors]") {
  DecodeError tier =
      only_error(R"({"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
    "metadata": {"name": "rack-1"}, "spec": {"tier": "1"}})");
  CHECK(tier.object == "HyperNode rack-1");
  CHECK(tier.path == "spec.tier");
  CHECK(tier.message == "expected a 32-bit integer, found the string \"1\"");

  DecodeError fraction = only_error(R"({"kind": "Pod", "metadata": {"name": "p"},
    "spec": {"priority": 1.5}})");
  CHECK(fraction.object == "Pod default/p");
  CHECK(fraction.path == "spec.priority");
  CHECK(fraction.message == "expected a 32-bit integer, found the number 1.5");

  DecodeError too_big = only_error(R"({"kind": "Pod", "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "c", "ports": [{"hostPort": 4294967296}]}]}})");
  CHECK(too_big.path == "spec.containers[0].ports[0].hostPort");
  CHECK(too_big.message == "expected a 32-bit integer, found the number 4294967296");

  DecodeError taints = only_error(R"({"kind": "Node", "metadata": {"name": "n"},
    "spec": {"taints": {"key": "a"}}})");
  CHECK(taints.object == "Node n");
  CHECK(taints.path == "spec.taints");
  CHECK(taints.message == "expected an array, found an object");

  DecodeError unschedulable = only_error(R"({"kind": "Node", "metadata": {"name": "n"},
    "spec": {"unschedulable": "yes"}})");
  CHECK(unschedulable.path == "spec.unschedulable");
  CHECK(unschedulable.message == "expected a boolean, found the string \"yes\"");

  DecodeError kind = only_error(R"({"kind": 5, "metadata": {"name": "n"}})");
  CHECK(kind.object == "document");
  CHECK(kind.path == "kind");
  CHECK(kind.message == "expected a string, found the number 5");

  DecodeError item = only_error(list_of(R"(17)"));
  CHECK(item.object == "items[0]");
  CHECK(item.path.empty());
  CHECK(item.message == "expected a JSON object, found a scalar");
}

TEST_CASE("a missing metadata.name rejects the object", "[decode][errors]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(list_of(R"(
    {"apiVersion": "v1", "kind": "Node", "metadata": {"labels": {"a": "b"}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "", "namespace": "x"}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "good"}})"),
                                      &snapshot);
  REQUIRE(summary.errors.size() == 2);
  CHECK(summary.errors[0].object == "items[0]");
  CHECK(summary.errors[0].path == "metadata.name");
  CHECK(summary.errors[0].message == "required field is missing");
  CHECK(summary.errors[1].object == "items[1]");
  CHECK(summary.errors[1].path == "metadata.name");
  REQUIRE(snapshot.nodes.size() == 1);
  CHECK(snapshot.nodes[0].meta.name == "good");
  CHECK(snapshot.pods.empty());

  DecodeError single = only_error(R"({"kind": "Pod", "spec": {}})");
  CHECK(single.object == "document");
  CHECK(single.path == "metadata.name");
}

TEST_CASE("a bad quantity names the resource", "[decode][errors]") {
  DecodeError error = only_error(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-1", "namespace": "shop"},
    "spec": {"containers": [{"name": "app", "resources": {"requests": {"memory": "1Gi", "cpu": "12x"}}}]}})");
  CHECK(error.object == "Pod shop/web-1");
  CHECK(error.path == "spec.containers[0].resources.requests.cpu");
  CHECK_THAT(error.message, Contains("invalid quantity \"12x\""));

  DecodeError wrong_type = only_error(R"({"kind": "Node", "metadata": {"name": "n"},
    "status": {"allocatable": {"cpu": true}}})");
  CHECK(wrong_type.path == "status.allocatable.cpu");
  CHECK(wrong_type.message ==
        "expected a quantity such as \"500m\" or \"1Gi\", found the boolean true");
}

TEST_CASE("unknown enum values are errors that list the valid ones", "[decode][errors]") {
  DecodeError effect = only_error(R"({"kind": "Node", "metadata": {"name": "te1"},
    "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}, {"key": "b", "effect": "Foo"}]}})");
  CHECK(effect.object == "Node te1");
  CHECK(effect.path == "spec.taints[1].effect");
  CHECK(effect.message == "expected one of NoSchedule, PreferNoSchedule, NoExecute, found \"Foo\"");

  DecodeError no_effect = only_error(R"({"kind": "Node", "metadata": {"name": "te1"},
    "spec": {"taints": [{"key": "a"}]}})");
  CHECK(no_effect.path == "spec.taints[0].effect");
  CHECK(no_effect.message ==
        "expected one of NoSchedule, PreferNoSchedule, NoExecute, found nothing");

  DecodeError toleration =
      only_error(R"({"kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
    "spec": {"tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Bogus"}]}})");
  CHECK(toleration.object == "Pod n/p");
  CHECK(toleration.path == "spec.tolerations[1].operator");
  CHECK(toleration.message == "expected one of Equal, Exists, found \"Bogus\"");

  DecodeError selector = only_error(R"({"kind": "Pod", "metadata": {"name": "p", "namespace": "n"},
    "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "Near", "values": ["a"]}]}]}}}}})");
  CHECK(selector.path ==
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
        "nodeSelectorTerms[0].matchExpressions[0].operator");
  CHECK(selector.message ==
        "expected one of In, NotIn, Exists, DoesNotExist, Gt, Lt, found \"Near\"");

  DecodeError label_selector =
      only_error(R"({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "pdb", "namespace": "n"},
    "spec": {"selector": {"matchExpressions": [{"key": "k", "operator": "Gt", "values": ["1"]}]}}})");
  CHECK(label_selector.object == "PodDisruptionBudget n/pdb");
  CHECK(label_selector.path == "spec.selector.matchExpressions[0].operator");
  CHECK(label_selector.message == "expected one of In, NotIn, Exists, DoesNotExist, found \"Gt\"");

  DecodeError phase =
      only_error(R"({"kind": "Pod", "metadata": {"name": "p"}, "status": {"phase": "Sleeping"}})");
  CHECK(phase.path == "status.phase");
  CHECK(phase.message ==
        "expected one of Pending, Running, Succeeded, Failed, Unknown, found \"Sleeping\"");

  DecodeError mode = only_error(R"({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
    "metadata": {"name": "j", "namespace": "n"}, "spec": {"networkTopology": {"mode": "strict"}}})");
  CHECK(mode.object == "Job n/j");
  CHECK(mode.path == "spec.networkTopology.mode");
  CHECK(mode.message == "expected one of hard, soft, found \"strict\"");

  DecodeError member =
      only_error(R"({"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
    "metadata": {"name": "h"}, "spec": {"tier": 1, "members": [{"type": "Rack"}]}})");
  CHECK(member.path == "spec.members[0].type");
  CHECK(member.message == "expected one of Node, HyperNode, found \"Rack\"");

  DecodeError percent = only_error(R"({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "pdb", "namespace": "n"}, "spec": {"minAvailable": "half"}})");
  CHECK(percent.path == "spec.minAvailable");
  CHECK(percent.message ==
        "expected an integer or a percentage such as \"50%\", found the string \"half\"");
}

TEST_CASE("items of a v1 List without a kind are errors", "[decode][errors]") {
  DecodeError error = only_error(list_of(R"({"metadata": {"name": "x"}})"));
  CHECK(error.object == "items[0]");
  CHECK(error.path == "kind");
  CHECK(error.message == "missing: items of a v1 List carry their own kind");
}

TEST_CASE("errors beyond the limit are counted, not kept", "[decode][errors]") {
  std::string items;
  const size_t bad = DecodeSummary::kMaxErrors + 5;
  for (size_t i = 0; i < bad; ++i) {
    if (i != 0) items += ",";
    items += R"({"kind": "Node", "metadata": {"name": "n)" + std::to_string(i) +
             R"("}, "spec": {"unschedulable": 1}})";
  }
  Snapshot snapshot;
  DecodeSummary summary = decode_json(list_of(items), &snapshot);
  CHECK(summary.errors.size() == DecodeSummary::kMaxErrors);
  CHECK(summary.errors_dropped == 5);
  CHECK_FALSE(summary.ok());
  CHECK(summary.errors.back().object == "Node n199");
  CHECK(snapshot.nodes.empty());
}
