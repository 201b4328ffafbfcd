// The usage file `loadshift snapshot` writes: pods in name order whatever order the usage map
// keeps them in (it is hashed), so two snapshots of the same usage are the same file.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/snapshot_writer.h"

using namespace loadshift;

TEST_CASE("the usage file lists pods in name order", "[snapshot]") {
  metrics::UsageMap usage;
  std::vector<std::string> sorted;
  for (int i = 0; i < 40; ++i) {  // enough keys that a hash order is never the sorted one by luck
    sorted.push_back("ns-" + std::to_string(i % 7) + "/pod-" + std::to_string(i));
    usage.pods.emplace(sorted.back(), metrics::PodUsage{250, 1024});
  }
  for (const char* key : {"ml/train-2", "default/web-1", "ml/train-10", "batch/job-7"}) {
    sorted.push_back(key);
    usage.pods.emplace(key, metrics::PodUsage{250, 1024});
  }
  std::sort(sorted.begin(), sorted.end());
  usage.pods.at("ml/train-10").cpu_milli = 4000;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(cli::usage_file_json(usage));
  std::vector<std::string> keys;
  for (const auto& item : doc["pods"].items()) keys.push_back(item.key());
  CHECK(keys == sorted);
  CHECK(doc["pods"]["ml/train-10"]["cpu"] == 4000);
  CHECK(doc["pods"]["batch/job-7"]["memory"] == 1024);
}
