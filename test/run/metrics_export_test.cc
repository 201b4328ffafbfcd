// The Grafana dashboard and the alerts of deploy/components/monitoring name only metrics a
// running controller exports: the controller goes through the states that bring every family
// out (evictions refused by a PodDisruptionBudget, evictions that succeed, a cycle skipped while
// Prometheus is down; the families of the scrapes after the last two), then every metric name in
// every PromQL expression of the dashboard (its panels and variables) and of the PrometheusRule
// must be a family of its /metrics.
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;

namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
bool ident_char(char c) {
  return ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

// The metric names of a PromQL expression: every identifier that is not a function or
// aggregation (followed by "("), a keyword, a label name (inside {...}, or in the list after
// by/without/on/ignoring/group_left/group_right), a duration or number, or a Grafana $variable.
std::set<std::string> metric_names(const std::string& expr) {
  static const std::set<std::string> keywords = {"and",    "or",  "unless", "bool",
                                                 "offset", "inf", "nan",    "atan2"};
  static const std::set<std::string> label_lists = {"by",       "without",    "on",
                                                    "ignoring", "group_left", "group_right"};
  std::set<std::string> out;
  size_t i = 0;
  auto skip_to = [&](char close) {
    while (i < expr.size() && expr[i] != close) {
      if (expr[i] == '"' || expr[i] == '\'') {  // a string inside the braces
        const char quote = expr[i++];
        while (i < expr.size() && expr[i] != quote) i += expr[i] == '\\' ? 2 : 1;
      }
      ++i;
    }
    ++i;
  };
  auto next_non_space = [&](size_t from) {
    while (from < expr.size() && std::isspace(static_cast<unsigned char>(expr[from]))) ++from;
    return from;
  };
  // "by" or "without" at `at`: the word before is an aggregation operator.
  auto followed_by_grouping = [&](size_t at) {
    for (const char* word : {"by", "without"}) {
      const size_t n = std::string_view(word).size();
      if (expr.compare(at, n, word) == 0 && (at + n >= expr.size() || !ident_char(expr[at + n]))) {
        return true;
      }
    }
    return false;
  };
  while (i < expr.size()) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '`') {
      ++i;
      skip_to(c);
    } else if (c == '{') {
      ++i;
      skip_to('}');
    } else if (c == '[') {
      ++i;
      skip_to(']');
    } else if (c == '$') {
      ++i;
      while (i < expr.size() && ident_char(expr[i])) ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      while (i < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[i])) ||
                                 expr[i] == '.' || expr[i] == '+' || expr[i] == '-')) {
        ++i;
      }
    } else if (ident_start(c)) {
      size_t start = i;
      while (i < expr.size() && ident_char(expr[i])) ++i;
      std::string word = expr.substr(start, i - start);
      size_t after = next_non_space(i);
      if (label_lists.count(word) != 0) {
        if (after < expr.size() && expr[after] == '(') {
          i = after + 1;
          skip_to(')');
        }
      } else if (keywords.count(word) == 0 && (after >= expr.size() || expr[after] != '(') &&
                 !followed_by_grouping(after)) {
        out.insert(word);  // not a function, nor an aggregation ("sum by (x) (...)")
      }
    } else {
      ++i;
    }
  }
  return out;
}

// The families of a scrape (# TYPE lines): name -> type.
std::map<std::string, std::string> families(const std::string& scrape_text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(scrape_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::istringstream words(line.substr(7));
    std::string name, type;
    words >> name >> type;
    out[name] = type;
  }
  return out;
}

// True when `name` is a series of an exported family (a histogram's _bucket, _sum, _count).
bool exported(const std::map<std::string, std::string>& fams, const std::string& name) {
  if (fams.count(name) != 0) return true;
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      auto it = fams.find(name.substr(0, name.size() - s.size()));
      if (it != fams.end() && (it->second == "histogram" || it->second == "summary")) return true;
    }
  }
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every PromQL expression of the dashboard (panel targets; a variable's label_values selector),
// with where it is.
void dashboard_exprs(const nlohmann::json& panels,
                     std::vector<std::pair<std::string, std::string>>& out) {
  for (const nlohmann::json& panel : panels) {
    if (panel.contains("panels")) dashboard_exprs(panel["panels"], out);
    for (const nlohmann::json& target : panel.value("targets", nlohmann::json::array())) {
      out.emplace_back("panel \"" + panel.value("title", "") + "\"", target.value("expr", ""));
    }
  }
}

}  // namespace

TEST_CASE("metric_names reads the metric names of PromQL", "[run][monitoring]") {
  CHECK(metric_names("histogram_quantile(0.95, sum by (le, query) (rate(a_seconds_bucket{job=~"
                     "\"$job\",x=\"b_total\"}[$__rate_interval])))") ==
        std::set<std::string>{"a_seconds_bucket"});
  CHECK(metric_names("time() - x_ts > 3 * y_s and on (instance) z == 1 or absent(w{j=\"k\"})") ==
        std::set<std::string>{"x_ts", "y_s", "z", "w"});
  CHECK(metric_names("avg by (pool) (u * on (instance, node) group_left (pool) c offset 5m)") ==
        std::set<std::string>{"u", "c"});
}

TEST_CASE("the dashboard and the alerts name only exported metrics", "[run][monitoring]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::atomic<bool> prometheus_down{false};
  prometheus.set_handler([&](const FakeRequest& r) {
    if (prometheus_down) return FakeResponse{503, "Service Unavailable", "text/plain"};
    return seed_usage_answer(r);
  });
  // A PodDisruptionBudget that refuses both evictions of the first cycle.
  server.set_objects("/apis/policy/v1/poddisruptionbudgets", {blocking_pdb()});
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings);

  controller::CycleOutcome refused = replica.cycle();
  CHECK(refused.failed == 2);
  server.set_objects("/apis/policy/v1/poddisruptionbudgets", {});
  REQUIRE(eventually([&] { return replica.cache.snapshot().pdbs.empty(); }));
  controller::CycleOutcome evicted = replica.cycle();
  CHECK(evicted.evicted == 2);
  // A fetch that worked exports each node's utilisation; the failed fetch below removes it (no
  // stale figure stays), so the families are those of both scrapes.
  const std::string after_evictions = scrape(*replica.registry);
  CHECK_THAT(after_evictions,
             Catch::Matchers::Contains(
                 "loadshift_node_utilization_ratio{node=\"te3\",resource=\"cpu\"} 0.92"));
  prometheus_down = true;
  controller::CycleOutcome skipped = replica.cycle();
  CHECK(skipped.skip_reason == "usage_fetch_failed");

  const std::string text = scrape(*replica.registry);
  std::map<std::string, std::string> fams = families(text);
  fams.merge(families(after_evictions));
  INFO(text);
  // The families the alerts and panels rely on have series now.
  for (const char* series :
       {"descheduler_pods_evicted_total{", "loadshift_evictions_skipped_total{reason=\"pdb\"}",
        "loadshift_cycles_skipped_total{reason=\"usage_fetch_failed\"}",
        "loadshift_node_planned_utilization_ratio{node=\"te3\",resource=\"cpu\"}",
        "loadshift_load_aware_coverage_ratio{profile=\"kube-system\"} 1",
        "loadshift_load_aware_coverage_required_ratio{profile=\"kube-system\"} 0.875",
        "loadshift_descheduling_interval_seconds 600", "loadshift_policy_valid 1"}) {
    CHECK_THAT(text, Catch::Matchers::Contains(series));
  }

  std::vector<std::pair<std::string, std::string>> exprs;  // (where, PromQL)
  const std::string monitoring =
      std::string(LOADSHIFT_SOURCE_DIR) + "/deploy/components/monitoring";
  nlohmann::json dashboard =
      nlohmann::json::parse(read_text(monitoring + "/loadshift-dashboard.json"));
  dashboard_exprs(dashboard["panels"], exprs);
  for (const nlohmann::json& variable : dashboard["templating"]["list"]) {
    if (variable.value("type", "") != "query") continue;
    std::string query = variable["query"]["query"];
    REQUIRE(query.rfind("label_values(", 0) == 0);
    exprs.emplace_back("variable " + variable["name"].get<std::string>(),
                       query.substr(13, query.rfind(',') - 13));
  }
  YAML::Node rule = YAML::LoadFile(monitoring + "/prometheusrule.yaml");
  for (const YAML::Node& group : rule["spec"]["groups"]) {
    for (const YAML::Node& r : group["rules"]) {
      exprs.emplace_back("alert " + r["alert"].as<std::string>(), r["expr"].as<std::string>());
    }
  }
  REQUIRE(exprs.size() > 30);
  std::set<std::string> named;
  for (const auto& [where, expr] : exprs) {
    std::set<std::string> names = metric_names(expr);
    INFO(where << ": " << expr);
    CHECK_FALSE(names.empty());
    for (const std::string& name : names) {
      INFO("metric " << name);
      CHECK(exported(fams, name));
      named.insert(name);
    }
  }
  // The dashboard covers the controller's own families (those of the descheduler it shares and
  // build information aside, every loadshift family appears in a panel or an alert).
  for (const auto& [family, type] : fams) {
    if (family.rfind("loadshift_", 0) != 0) continue;
    bool used = named.count(family) != 0 || named.count(family + "_bucket") != 0;
    INFO("family " << family << " is in no panel and no alert");
    CHECK((used || family == "loadshift_usage_nodes" ||
           family == "loadshift_policy_reloads_total" ||
           family == "loadshift_last_cycle_timestamp_seconds"));
  }
}
