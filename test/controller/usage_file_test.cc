// The usage file `loadshift snapshot` writes: pods in name order whatever order the usage map
// keeps them in (it is hashed), so two snapshots of the same usage are the same file.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "controller/snapshot_writer.h"

using namespace loadshift;

TEST_CASE("the usage file lists pods in name order", "[snapshot]") {
  metrics::UsageMap usage;
  for (const char* key : {"ml/train-2", "default/web-1", "ml/train-10", "batch/job-7"}) {
    usage.pods.emplace(key, metrics::PodUsage{250, 1024});
  }
  usage.pods.at("ml/train-10").cpu_milli = 4000;
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(controller::usage_file_json(usage));
  std::vector<std::string> keys;
  for (const auto& item : doc["pods"].items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"batch/job-7", "default/web-1", "ml/train-10",
                                         "ml/train-2"});
  CHECK(doc["pods"]["ml/train-10"]["cpu"] == 4000);
  CHECK(doc["pods"]["batch/job-7"]["memory"] == 1024);
}
