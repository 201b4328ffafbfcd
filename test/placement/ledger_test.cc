#include <catch2/catch.hpp>

#include "placement/ledger.h"

using namespace loadshift::placement;

using namespace loadshift::model;

namespace {

ResourceList requests(int64_t cpu_milli, int64_t memory) {
  ResourceList r;
  r.cpu_milli = cpu_milli;
  r.memory = memory;
  r.pods = 1;
  r.set("nvidia.com/gpu", 1);
  return r;
}

}  // namespace

TEST_CASE("ledger reserves requests on the target and moves a re-planned pod", "[ledger]") {
  Ledger ledger(3);
  CHECK(ledger.planned_node(7) == kNoNode);
  ledger.reserve(7, 0, 1, requests(500, 100));
  ledger.reserve(8, 0, 1, requests(250, 50));
  CHECK(ledger.reserved(1).cpu_milli == 750);
  CHECK(ledger.reserved(1).memory == 150);
  CHECK(ledger.reserved(1).pods == 2);
  CHECK(ledger.reserved(1).get("nvidia.com/gpu") == 2);
  CHECK(ledger.reserved(0).zero());  // the source keeps its requests until eviction is confirmed
  CHECK(ledger.incoming(1) == std::vector<PodId>{7, 8});
  CHECK(ledger.planned_node(7) == 1);

  // Planning pod 7 elsewhere moves its reservation.
  ledger.reserve(7, 0, 2, requests(500, 100));
  CHECK(ledger.reserved(1).cpu_milli == 250);
  CHECK(ledger.reserved(1).pods == 1);
  CHECK(ledger.reserved(1).get("nvidia.com/gpu") == 1);
  CHECK(ledger.reserved(2).cpu_milli == 500);
  CHECK(ledger.incoming(1) == std::vector<PodId>{8});
  CHECK(ledger.incoming(2) == std::vector<PodId>{7});
  CHECK(ledger.planned_node(7) == 2);
  REQUIRE(ledger.moves().size() == 2);
  CHECK(ledger.moves()[0].to == 2);
}

TEST_CASE("resource lists add, take the max and describe themselves", "[resources]") {
  ResourceList a = requests(1500, int64_t{3} << 30);
  ResourceList b;
  b.cpu_milli = 2000;
  b.set("example.com/fpga", 2);
  ResourceList sum = a;
  sum.add_all(b);
  CHECK(sum.cpu_milli == 3500);
  CHECK(sum.get("example.com/fpga") == 2);
  CHECK(sum.get("nvidia.com/gpu") == 1);
  ResourceList peak = a;
  peak.max_all(b);
  CHECK(peak.cpu_milli == 2000);
  CHECK(peak.memory == int64_t{3} << 30);
  CHECK(a.describe() == "cpu=1500m, memory=3Gi, pods=1, nvidia.com/gpu=1");
  CHECK(ResourceList{}.describe() == "nothing");
  CHECK(format_amount("memory", 1536) == "1536");
  CHECK(format_amount("memory", 1024 * 1024 * 5) == "5Mi");
  CHECK(format_amount("cpu", 2000) == "2");
  CHECK(format_amount("hugepages-2Mi", int64_t{4} << 21) == "8Mi");
}
