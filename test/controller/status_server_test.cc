// The status page of the controller's HTTP port (controller/status_server.h): / and /plan.json
// from the plan source, 503 with the reason when there is no plan, 404 without a source.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "controller/status_server.h"

using namespace loadshift;
using Catch::Matchers::Contains;

namespace {

std::shared_ptr<const report::PlanView> one_node_plan() {
  auto view = std::make_shared<report::PlanView>();
  report::NodeRow row;
  row.name = "te3";
  row.pool = "inference";
  row.node_class = strategies::NodeClass::kOverutilized;
  row.cpu.before = 92;
  row.cpu.after = 80;
  view->content.nodes.push_back(row);
  view->content.evictions.push_back({"load-test", "web-1", "te3", "te8", "LoadAware", "hot", ""});
  view->content.summary.evictions = 1;
  view->content.summary.overutilized = 1;
  view->content.at = "2026-11-22T04:00:00Z";
  return view;
}

}  // namespace

TEST_CASE("status page: no plan is a 503 that says why; a plan is the page and its JSON",
          "[controller][status]") {
  std::mutex mutex;
  controller::PublishedPlan published{nullptr, "standby: the lease is held by <b>replica-a</b>"};
  controller::StatusServer server(
      {"127.0.0.1:0", "", ""}, std::make_shared<prometheus::Registry>(),
      [] {
        return controller::Readiness{true, ""};
      },
      [&] {
        std::lock_guard<std::mutex> lock(mutex);
        return published;
      },
      "loadshift test");
  REQUIRE(server.start().empty());
  httplib::Client http("127.0.0.1", server.port());

  auto page = http.Get("/");
  REQUIRE(page);
  CHECK(page->status == 503);
  CHECK_THAT(page->body, Contains("standby: the lease is held by &lt;b&gt;replica-a&lt;/b&gt;"));
  auto json = http.Get("/plan.json");
  REQUIRE(json);
  CHECK(json->status == 503);
  CHECK(nlohmann::json::parse(json->body)["error"] ==
        "standby: the lease is held by <b>replica-a</b>");

  {
    std::lock_guard<std::mutex> lock(mutex);
    published = {one_node_plan(), "the cycle of 2026-11-22T04:00:00Z: 1 of 1 carried out"};
  }
  page = http.Get("/");
  REQUIRE(page);
  CHECK(page->status == 200);
  CHECK(page->get_header_value("Cache-Control") == "no-store");
  CHECK_THAT(page->body, Contains("<!DOCTYPE html>"));
  CHECK_THAT(page->body, Contains("\"status\":\"the cycle of 2026-11-22T04:00:00Z: 1 of 1"));
  CHECK_THAT(page->body, Contains("\"generator\":\"loadshift test\""));
  // Asked again: the same bytes (rendered once for this plan and status).
  auto again = http.Get("/");
  REQUIRE(again);
  CHECK(again->body == page->body);
  // A browser takes gzip: the same page, compressed (the client here inflates it again).
  auto packed = http.Get("/", {{"Accept-Encoding", "gzip, deflate"}});
  REQUIRE(packed);
  CHECK(packed->get_header_value("Content-Encoding") == "gzip");
  CHECK(packed->body == page->body);
  for (const char* refusing : {"identity", "gzip; q=0", "GZIP;Q=0.0, deflate", "br"}) {
    INFO(refusing);
    auto answer = http.Get("/", {{"Accept-Encoding", refusing}});
    REQUIRE(answer);
    CHECK(answer->get_header_value("Content-Encoding").empty());
  }
  for (const char* taking : {"gzip;q=0.5", "x-gzip;q=0, GZIP", "deflate, gzip ; q=1"}) {
    INFO(taking);
    auto answer = http.Get("/", {{"Accept-Encoding", taking}});
    REQUIRE(answer);
    CHECK(answer->get_header_value("Content-Encoding") == "gzip");
  }
  auto plain = http.Get("/", {{"Accept-Encoding", "identity"}});
  REQUIRE(plain);
  CHECK(plain->get_header_value("Content-Encoding").empty());
  CHECK(plain->body == page->body);
  json = http.Get("/plan.json");
  REQUIRE(json);
  CHECK(json->status == 200);
  // When the plan was made and what the cycles since said, for a script.
  CHECK(json->get_header_value("X-Loadshift-Plan-At") == "2026-11-22T04:00:00Z");
  CHECK(json->get_header_value("X-Loadshift-Status") ==
        "the cycle of 2026-11-22T04:00:00Z: 1 of 1 carried out");
  nlohmann::json doc = nlohmann::json::parse(json->body);
  CHECK(doc["nodes"][0]["name"] == "te3");
  CHECK(doc["nodes"][0]["class"] == "overutilized");
  CHECK(doc["evictions"][0]["target"] == "te8");
  CHECK(doc["summary"]["evictions"] == 1);
  // A later cycle that could not plan keeps the plan and says so: the page is rendered anew,
  // the header tells.
  {
    std::lock_guard<std::mutex> lock(mutex);
    published.status =
        "the cycle of 2026-11-22T04:10:00Z did not plan: usage fetch: timed out\n"
        "(shown: the plan of 2026-11-22T04:00:00Z)";
  }
  auto stale = http.Get("/plan.json");
  REQUIRE(stale);
  CHECK(stale->status == 200);
  CHECK(stale->get_header_value("X-Loadshift-Plan-At") == "2026-11-22T04:00:00Z");
  CHECK_THAT(stale->get_header_value("X-Loadshift-Status"),
             Contains("did not plan: usage fetch: timed out (shown: the plan of"));
  auto stale_page = http.Get("/");
  REQUIRE(stale_page);
  CHECK_THAT(stale_page->body, Contains("did not plan: usage fetch: timed out"));
  // Bytes that are not UTF-8 in a reason: still the 503 with the reason, not a 500.
  {
    std::lock_guard<std::mutex> lock(mutex);
    published = {nullptr, "standby: \xff\xfe"};
  }
  auto bad = http.Get("/plan.json");
  REQUIRE(bad);
  CHECK(bad->status == 503);
  CHECK(nlohmann::json::parse(bad->body)["error"].get<std::string>().rfind("standby: ", 0) == 0);
  auto del = http.Delete("/plan.json");
  REQUIRE(del);
  CHECK(del->status != 200);
  server.stop();
}

TEST_CASE("status page: without a plan source, / and /plan.json are not served",
          "[controller][status]") {
  controller::StatusServer server({"127.0.0.1:0", "", ""}, std::make_shared<prometheus::Registry>(),
                                  [] {
                                    return controller::Readiness{true, ""};
                                  });
  REQUIRE(server.start().empty());
  httplib::Client http("127.0.0.1", server.port());
  CHECK(http.Get("/")->status == 404);
  CHECK(http.Get("/plan.json")->status == 404);
  CHECK(http.Get("/healthz")->status == 200);
  server.stop();
}
