// Real policy files written outside this project (test/data/shared/policy-corpus): every file has
// the outcome test/policy/corpus_outcomes.tsv expects, and the messages they draw are true.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "load_text.h"
#include "policy/volcano_policy.h"

namespace loadshift::policy {
namespace {

using testing::lines_of;
using Strings = std::vector<std::string>;

const std::string kCorpus = std::string(LOADSHIFT_SHARED_DIR) + "/policy-corpus";

struct Row {
  std::string file, outcome, error_text, why;
};

std::vector<Row> read_outcomes() {
  std::ifstream in(std::string(LOADSHIFT_SOURCE_DIR) + "/test/policy/corpus_outcomes.tsv");
  REQUIRE(in.good());
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    std::stringstream split(line);
    std::string field;
    while (std::getline(split, field, '\t')) fields.push_back(field);
    fields.resize(4);
    rows.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return rows;
}

LoadResult load(const std::string& file) {
  return load_policy_file(kCorpus + "/" + file);
}

// The plugins an error names as "loadshift does not implement plugin X yet", or empty for any
// other error.
std::string missing_plugin(const Diagnostic& error) {
  static const std::string kStart = "loadshift does not implement plugin ";
  size_t at = error.message.find(kStart);
  if (at == std::string::npos) return "";
  size_t begin = at + kStart.size();
  return error.message.substr(begin, error.message.find(' ', begin) - begin);
}

bool any_contains(const std::vector<Diagnostic>& list, const std::string& text) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Diagnostic& d) { return d.to_string().find(text) != std::string::npos; });
}

std::vector<std::string> warnings_of(const std::string& file) {
  return lines_of(load(file).warnings);
}

size_t count_containing(const std::vector<std::string>& lines, const std::string& text) {
  return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(text) != std::string::npos;
  }));
}

}  // namespace

TEST_CASE("every corpus file has its expected outcome", "[policy][corpus]") {
  std::vector<Row> rows = read_outcomes();
  std::set<std::string> listed;
  for (const Row& row : rows) listed.insert(row.file);
  std::set<std::string> present;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kCorpus)) {
    std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".yaml" || ext == ".json")) {
      present.insert(std::filesystem::relative(entry.path(), kCorpus).string());
    }
  }
  CHECK(present.size() == 115);
  CHECK(listed == present);  // a file without a row, or a row without a file

  for (const Row& row : rows) {
    INFO(row.file << " expected " << row.outcome << " " << row.error_text);
    LoadResult result = load(row.file);
    for (const Diagnostic& e : result.errors) UNSCOPED_INFO(e.to_string());
    if (row.outcome == "accepted") {
      CHECK(result.ok());
      continue;
    }
    REQUIRE_FALSE(result.ok());
    std::set<std::string> missing;
    bool only_missing_plugins = true;
    for (const Diagnostic& e : result.errors) {
      std::string plugin = missing_plugin(e);
      if (plugin.empty()) only_missing_plugins = false;
      else missing.insert(plugin);
    }
    if (row.outcome.rfind("not-implemented:", 0) == 0) {
      CHECK(only_missing_plugins);
      std::string names;
      for (const std::string& p : missing) names += (names.empty() ? "" : ",") + p;
      CHECK(row.outcome == "not-implemented:" + names);
    } else if (row.outcome == "v1alpha1") {
      CHECK(any_contains(result.errors, "descheduler/v1alpha1 is not supported"));
    } else {
      REQUIRE((row.outcome == "invalid" || row.outcome == "stricter" ||
               row.outcome == "not-a-policy"));
      CHECK_FALSE(row.why.empty());
      CHECK_FALSE(only_missing_plugins);
      CHECK(any_contains(result.errors, row.error_text));
    }
  }
}

TEST_CASE("corpus: a deprecated boolean set to false says to delete the line",
          "[policy][corpus][messages]") {
  // The drift demo sets evictSystemCriticalPods/evictLocalStoragePods/evictDaemonSetPods: false.
  const std::string file = "aws-samples_sample-eks-descheduler-drift-demo/production__policy-pilot.yaml";
  Strings warnings = warnings_of(file);
  CHECK(count_containing(warnings, "false is the default, so delete the line") >= 2);
  CHECK(count_containing(warnings, "evictSystemCriticalPods: false is the default") == 1);
  // Never the hint that would turn the protection off.
  CHECK(count_containing(warnings, "use podProtections.defaultDisabled") == 0);
  // Across the corpus: no `false` gets the podProtections hint.
  for (const Row& row : read_outcomes()) {
    LoadResult result = load(row.file);
    for (const Diagnostic& w : result.warnings) {
      INFO(row.file << ": " << w.to_string());
      if (w.message.find("deprecated since") == std::string::npos) continue;
      bool says_delete = w.message.find("delete the line") != std::string::npos;
      bool says_use = w.message.find("use podProtections") != std::string::npos;
      CHECK(says_delete != says_use);
    }
  }
}

TEST_CASE("corpus: Volcano's installer ConfigMap gets true metrics messages",
          "[policy][corpus][messages]") {
  LoadResult result =
      load("volcano-sh_descheduler/installer__volcano-descheduler-development__configmap-document.yaml");
  Strings errors = lines_of(result.errors);
  // `type: null` and `address: null` are null, not missing.
  CHECK(count_containing(errors, "metrics.type: required field is null") == 1);
  CHECK(count_containing(errors, "metrics.address: required field is null") == 1);
  CHECK(count_containing(errors, "required field is missing") == 0);
  // The hint is Volcano's exact constant, and Volcano is not called silent.
  CHECK(count_containing(errors, "set type: prometheus") == 1);
  CHECK(count_containing(errors, "logs an error every cycle") == 1);
  CHECK(count_containing(errors, "silent") == 0);
  // A profile whose plugins are refused is not also told it enables nothing.
  CHECK(count_containing(lines_of(result.warnings), "evicts nothing") == 0);
}

TEST_CASE("corpus: no 'evicts nothing' beside errors about the enabled plugins",
          "[policy][corpus][messages]") {
  size_t files_with_errors = 0;
  for (const Row& row : read_outcomes()) {
    LoadResult result = load(row.file);
    if (result.ok()) continue;
    ++files_with_errors;
    INFO(row.file);
    CHECK(count_containing(lines_of(result.warnings), "evicts nothing") == 0);
  }
  CHECK(files_with_errors >= 36);
  // Still said where it is true: a profile that enables no deschedule or balance plugin.
  Strings warnings = warnings_of("kubernetes-sigs_descheduler/README__L201-216__pvc-protected-storage-classes.yaml");
  CHECK(count_containing(warnings, "no deschedule or balance plugin is enabled") == 1);
}

TEST_CASE("corpus: empty sort/presort blocks of the OpenShift operator draw no warning",
          "[policy][corpus][messages]") {
  const std::string file =
      "openshift_cluster-kube-descheduler-operator/operator__testdata__assets__lowNodeUtilizationLowConfig.yaml";
  std::string text = testing::read_file(kCorpus + "/" + file);
  REQUIRE(text.find("presort:") != std::string::npos);
  CHECK(count_containing(warnings_of(file), "has no effect") == 0);
  // A plugin really enabled there is still worth a warning.
  testing::Loaded loaded = testing::load_text(testing::policy_with_profile(
      "  plugins:\n    sort:\n      enabled: [Foo]\n    balance:\n      enabled: "
      "[LowNodeUtilization]\n  pluginConfig:\n  - name: LowNodeUtilization\n    args:\n      "
      "thresholds: {cpu: 20}\n      targetThresholds: {cpu: 50}\n"));
  CHECK(count_containing(loaded.warnings, "sort: has no effect") == 1);
}

TEST_CASE("corpus: the summary of a taints plugin without excludedTaints says all taints",
          "[policy][corpus][messages]") {
  LoadResult result = load("kubernetes-sigs_descheduler/README__L667-680__RemovePodsViolatingNodeTaints-included.yaml");
  REQUIRE(result.ok());
  std::string summary = summarize_policy(*result.policy);
  CHECK_THAT(summary, Catch::Contains("only taints"));
  LoadResult plain = load("martishin_k8s-descheduler-benchmark/taints__rendered.yaml");
  REQUIRE(plain.ok());
  std::string text = summarize_policy(*plain.policy);
  CHECK_THAT(text, Catch::Contains("RemovePodsViolatingNodeTaints: all taints, "));
  CHECK_THAT(text, !Catch::Contains("but none"));
}

TEST_CASE("corpus: a Volcano LoadAware file without a window uses Volcano's 2m",
          "[policy][corpus][window]") {
  // A user's Volcano ConfigMap, without the misplaced top-level nodeFit it is refused for.
  std::string text = testing::read_file(
      kCorpus + "/unidentified-zh-blog/volcano-descheduler-configmap-edit.yaml");
  const std::string misplaced = "    nodeFit: true\n    profiles:";
  REQUIRE(text.find(misplaced) != std::string::npos);
  text.replace(text.find(misplaced), misplaced.size(), "    profiles:");
  Policy user = testing::load_valid(text);
  CHECK(std::get<LoadAwareArgs>(user.profiles[0].config("LoadAware")->args).metrics.window ==
        Duration{120000, "2m"});
  Policy seed = testing::load_valid(testing::read_file(
      std::string(LOADSHIFT_SHARED_DIR) + "/seed-examples/05-load-aware-policy.yaml"));
  const auto& args = std::get<LoadAwareArgs>(seed.profiles[0].config("LoadAware")->args);
  CHECK(args.metrics.window == Duration{120000, "2m"});
  // loadshift's own metrics keys: loadshift's 5m default.
  Policy own = testing::load_valid(testing::policy_with_profile(
      "  pluginConfig:\n  - name: LoadAware\n    args:\n      metrics: {type: prometheus, "
      "address: \"http://p:9090\", step: 1m}\n      thresholds: {cpu: 30}\n      "
      "targetThresholds: {cpu: 80}\n  plugins:\n    balance:\n      enabled: [LoadAware]\n"));
  CHECK(std::get<LoadAwareArgs>(own.profiles[0].config("LoadAware")->args).metrics.window ==
        Duration{300000, "5m"});
  // Likewise loadshift's keys beside a Volcano-form metrics block: not a Volcano file.
  Policy extended = testing::load_valid(testing::policy_with_profile(
      "  pluginConfig:\n  - name: LoadAware\n    args:\n      metrics: {type: prometheus, "
      "address: \"http://p:9090\"}\n      sustainedFor: 10m\n      thresholds: {cpu: 30}\n"
      "      targetThresholds: {cpu: 80}\n  plugins:\n    balance:\n      enabled: [LoadAware]\n"));
  CHECK(std::get<LoadAwareArgs>(extended.profiles[0].config("LoadAware")->args).metrics.window ==
        Duration{300000, "5m"});
}

TEST_CASE("corpus: --for volcano writes only what Volcano reads", "[policy][corpus][volcano]") {
  Policy seed = testing::load_valid(testing::read_file(
      std::string(LOADSHIFT_SHARED_DIR) + "/seed-examples/05-load-aware-policy.yaml"));
  VolcanoPolicy volcano = write_volcano_policy_yaml(seed);
  // Nothing of loadshift's own, nothing Volcano's v0.30 types lack.
  for (const char* key : {"podProtections", "window:", "step:", "gang:", "gpu:", "nodePools",
                          "minNodeCoverage", "noEvictionPolicy", "metricsProviders",
                          "maxNoOfPodsToEvictTotal", "evictionFailureEventNotification"}) {
    INFO(key);
    CHECK(volcano.yaml.find(key) == std::string::npos);
  }
  CHECK_THAT(volcano.yaml, Catch::Contains("type: prometheus\n"));
  CHECK_THAT(volcano.yaml, Catch::Contains("duration: 2m\n"));
  CHECK_THAT(volcano.yaml, Catch::Contains("ignorePvcPods: true\n"));
  CHECK_THAT(volcano.yaml, Catch::Contains("evictLocalStoragePods: false\n"));
  // What it cannot carry is said, in the header and to the caller.
  // The seed's DefaultEvictor has nodeFit: true, which Volcano's LoadAware runs too: no note.
  REQUIRE(volcano.not_carried.size() == 2);
  CHECK_THAT(volcano.not_carried[0], Catch::Contains("Volcano counts them as idle"));
  CHECK_THAT(volcano.not_carried[1], Catch::Contains("GPU pods and Volcano gangs"));
  CHECK_THAT(volcano.yaml, Catch::Contains("# Not carried over"));
  // loadshift reads it back with the same meaning where Volcano has the fields.
  testing::Loaded back = testing::load_text(volcano.yaml);
  REQUIRE(back.result.ok());
  const auto& a = std::get<LoadAwareArgs>(seed.profiles[0].config("LoadAware")->args);
  const auto& b =
      std::get<LoadAwareArgs>(back.result.policy->profiles[0].config("LoadAware")->args);
  CHECK(b.metrics.window == a.metrics.window);
  CHECK(b.thresholds == a.thresholds);
  CHECK(b.target_thresholds == a.target_thresholds);
  CHECK(std::get<DefaultEvictorArgs>(back.result.policy->profiles[0].config("DefaultEvictor")->args) ==
        std::get<DefaultEvictorArgs>(seed.profiles[0].config("DefaultEvictor")->args));

  // A policy with loadshift-only settings lists each one.
  Policy rich = testing::load_valid(
      "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nmaxNoOfPodsToEvictTotal: 5\n"
      "profiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n    args:\n      "
      "podProtections: {extraEnabled: [PodsWithoutPDB]}\n  - name: LoadAware\n    args:\n      "
      "metrics: {type: prometheus, address: \"http://p:9090\", step: 1m}\n      sustainedFor: 10m\n"
      "      thresholds: {cpu: 30}\n      targetThresholds: {cpu: 80}\n  plugins:\n    balance:\n"
      "      enabled: [LoadAware]\n");
  VolcanoPolicy lossy = write_volcano_policy_yaml(rich);
  std::string all;
  for (const std::string& line : lossy.not_carried) all += line + "\n";
  CHECK_THAT(all, Catch::Contains("maxNoOfPodsToEvictTotal 5"));
  CHECK_THAT(all, Catch::Contains("PodsWithoutPDB"));
  CHECK_THAT(all, Catch::Contains("metrics.step 1m"));
  CHECK_THAT(all, Catch::Contains("sustainedFor 10m"));
  // No nodeFit anywhere: Volcano would evict without a fit check.
  CHECK_THAT(all, Catch::Contains("nodeFit false here and in DefaultEvictor"));
}

TEST_CASE("corpus: the summary of PodLifeTime names its conditions", "[policy][corpus][messages]") {
  LoadResult result =
      load("kubernetes-sigs_descheduler/README__L812-831__PodLifeTime-transition.yaml");
  REQUIRE(result.ok());
  CHECK_THAT(summarize_policy(*result.policy),
             Catch::Contains("PodLifeTime: pods in states Succeeded, with a condition {status True "
                             "and reason PodCompleted and unchanged for 14400 s}, not owned by "
                             "Job (containers); all namespaces"));
}

TEST_CASE("corpus: an impossible namespace name under include loads, warned and kept",
          "[policy][corpus][messages]") {
  // The OpenShift operator's testdata include "includedNamespace": upstream loads the file and
  // the filter matches no pod. Kept (dropping it would leave the list empty: every namespace).
  const std::string file =
      "openshift_cluster-kube-descheduler-operator/operator__testdata__assets__lowNodeUtilizationIncludedNamespace.yaml";
  LoadResult result = load(file);
  REQUIRE(result.ok());
  Strings warnings = lines_of(result.warnings);
  CHECK(count_containing(warnings, "namespaces.include[0]: \"includedNamespace\" can never be a "
                                   "namespace name (lowercase letters, digits and '-'), so it "
                                   "matches no pod") == 2);
  const PluginConfig* lifetime = result.policy->profiles[0].config("PodLifeTime");
  REQUIRE(lifetime != nullptr);
  CHECK(std::get<PodLifeTimeArgs>(lifetime->args).namespaces.include ==
        Strings{"includedNamespace"});
  // Under exclude the same name would protect nothing: an error.
  testing::Loaded loaded = testing::load_text(testing::policy_with_profile(
      "  plugins:\n    deschedule:\n      enabled: [PodLifeTime]\n  pluginConfig:\n  - name: "
      "PodLifeTime\n    args:\n      maxPodLifeTimeSeconds: 60\n      namespaces: {exclude: "
      "[Kube-System]}\n"));
  CHECK(count_containing(loaded.errors, "expected a namespace name (lowercase letters, digits "
                                        "and '-'), found \"Kube-System\"") == 1);
}

}  // namespace loadshift::policy
