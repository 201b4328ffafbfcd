// FileSource / parse_usage_json: good files, and every malformed one named by file and JSON path.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "metrics/file_source.h"

using namespace loadshift::metrics;

namespace {

const std::vector<NodeIdentity> kNodes = {{"te1", ""}, {"te2", ""}, {"te3", ""}};

std::string parse_error(const std::string& text) {
  try {
    parse_usage_json(text, "usage.json", kNodes);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected UsageError for " << text);
  return "";
}

}  // namespace

TEST_CASE("a usage file gives nodes, sustained values and pods", "[file]") {
  UsageMap usage = parse_usage_json(R"({
    "nodes": {"te1": {"cpu": 35.5, "memory": 40},
              "te2": {"cpu": 90, "memory": 10, "cpuMin": 82, "cpuMax": 97, "memoryMin": 5,
                      "memoryMax": 12},
              "te9": {"cpu": 1, "memory": 1}},
    "pods": {"default/web-1": {"cpu": 250, "memory": 268435456}}})",
                                    "usage.json", kNodes);
  REQUIRE(usage.nodes.size() == 2);
  CHECK(usage.nodes.at("te1").cpu.percent == 35.5);
  CHECK(usage.nodes.at("te1").memory.percent == 40);
  CHECK_FALSE(usage.nodes.at("te1").cpu.sustained_min);
  CHECK(usage.nodes.at("te2").cpu.sustained_min == 82.0);
  CHECK(usage.nodes.at("te2").cpu.sustained_max == 97.0);
  CHECK(usage.nodes.at("te2").memory.sustained_min == 5.0);
  CHECK(usage.nodes.at("te2").memory.sustained_max == 12.0);
  CHECK(usage.unknown.size() == 1);
  CHECK(usage.unknown.at("te3") == "not in usage.json");
  REQUIRE(usage.pods.size() == 1);
  CHECK(usage.pods.at("default/web-1").cpu_milli == 250);
  CHECK(usage.pods.at("default/web-1").memory_bytes == 268435456);
  REQUIRE(usage.warnings.size() == 1);
  CHECK(usage.warnings[0] ==
        "usage.json: 1 node(s) in the file are not among the nodes asked about (e.g. te9)");
  CHECK(usage.origin == "file usage.json");
}

TEST_CASE("malformed usage files are named by file and JSON path", "[file]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {R"({"nodes": {"te1": {"cpu": "x", "memory": 1}}})",
       R"(usage.json: nodes.te1.cpu: expected a number 0..100, got "x")"},
      {R"({"nodes": {"te1": {"cpu": 130, "memory": 1}}})",
       "usage.json: nodes.te1.cpu: expected a number 0..100, got 130"},
      {R"({"nodes": {"te1": {"cpu": 10, "memory": -1}}})",
       "usage.json: nodes.te1.memory: expected a number 0..100, got -1"},
      {R"({"nodes": {"te1": {"cpu": "NaN", "memory": 1}}})",
       R"(usage.json: nodes.te1.cpu: expected a number 0..100, got "NaN")"},
      {R"({"nodes": {"te1": {"cpu": 10}}})",
       R"(usage.json: nodes.te1: missing "memory" (expected a number 0..100))"},
      {R"({"nodes": {"te1": {"cpu": 10, "memory": 1, "gpu": 3}}})",
       "usage.json: nodes.te1.gpu: unknown field (expected cpu, memory, cpuMin, cpuMax, memoryMin, "
       "memoryMax, metricResource)"},
      {R"({"nodes": {"te1": {"cpu": 10, "memory": 1, "cpuMin": 50, "cpuMax": 40}}})",
       "usage.json: nodes.te1: cpuMin 50 is greater than cpuMax 40"},
      {R"({"nodes": {"te1": 12}})",
       R"(usage.json: nodes.te1: expected an object {"cpu": percent, "memory": percent}, got 12)"},
      {R"({"nodes": {"node.example.com": {"cpu": true, "memory": 1}}})",
       R"(usage.json: nodes["node.example.com"].cpu: expected a number 0..100, got true)"},
      {R"({"nodes": []})",
       "usage.json: nodes: expected an object of node name -> usage, got a list"},
      {R"({"pods": {}})", R"(usage.json: missing "nodes")"},
      {R"({"nodes": {}, "nodez": {}})", "usage.json: nodez: unknown field (expected nodes, pods)"},
      {R"([1])", "usage.json: expected an object {\"nodes\": {...}, \"pods\": {...}}, got a list"},
      {R"({"nodes": {"te1": {"cpu": 1, "memory": 1}})",
       "usage.json: not JSON: parse error at line 1"},
      {"", "usage.json: not JSON: "},
      // nlohmann reports a number too large for a double as out_of_range, not parse_error (the
      // usage fuzzer found it: it ended the process).
      {R"({"nodes": {"te1": {"cpu": 2e01229, "memory": 1}}})",
       "usage.json: not JSON: number overflow"},
      {R"({"nodes": {}, "pods": {"web-1": {"cpu": 1, "memory": 1}}})",
       R"(usage.json: pods.web-1: expected a pod key "namespace/name")"},
      {R"({"nodes": {}, "pods": {"default/web-1": {"cpu": -5, "memory": 1}}})",
       R"(usage.json: pods["default/web-1"].cpu: expected millicores >= 0, got -5)"},
      {R"({"nodes": {}, "pods": {"default/web-1": {"cpu": 5}}})",
       R"(usage.json: pods["default/web-1"]: missing "memory" (expected bytes >= 0))"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    CHECK_THAT(parse_error(c.text), Catch::StartsWith(c.message));
  }
}

TEST_CASE("FileSource reads the file at every fetch", "[file]") {
  std::string path = "/tmp/loadshift-usage-test-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path) << R"({"nodes": {"te1": {"cpu": 10, "memory": 20}}})";
  FileSource source(path);
  UsageMap first = source.fetch(kNodes, {});
  CHECK(first.nodes.at("te1").cpu.percent == 10);
  CHECK(first.unknown.at("te2") == "not in " + path);
  CHECK(first.origin == "file " + path);
  std::ofstream(path)
      << R"({"nodes": {"te1": {"cpu": 70, "memory": 20}, "te2": {"cpu": 1, "memory": 2}}})";
  UsageMap second = source.fetch(kNodes, {});
  CHECK(second.nodes.at("te1").cpu.percent == 70);
  CHECK(second.nodes.count("te2"));
  std::remove(path.c_str());
  CHECK_THROWS_WITH(source.fetch(kNodes, {}), path + ": cannot read: No such file or directory");
  CHECK_THROWS_WITH(FileSource("/tmp").fetch(kNodes, {}), "/tmp: cannot read: Is a directory");
}
