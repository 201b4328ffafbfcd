// read_cluster(): paginated lists streamed into the decoder.
#include "kube/cluster_reader.h"

#include <iterator>

#include "http/http_client.h"

namespace loadshift::kube {
namespace {

template <typename T>
void move_all(std::vector<T>& into, std::vector<T>& from) {
  if (into.empty()) {
    into = std::move(from);
  } else {
    into.insert(into.end(), std::make_move_iterator(from.begin()),
                std::make_move_iterator(from.end()));
  }
  from.clear();
}

}  // namespace

const std::vector<Collection>& plan_collections() {
  static const std::vector<Collection> collections = {
      {"/api/v1/nodes", "Node", "v1", false, "Nodes"},
      {"/api/v1/pods", "Pod", "v1", false, "Pods"},
      {"/apis/policy/v1/poddisruptionbudgets", "PodDisruptionBudget", "policy/v1", false,
       "PodDisruptionBudgets"},
      {"/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClass", "scheduling.k8s.io/v1", false,
       "PriorityClasses"},
      {"/api/v1/persistentvolumeclaims", "PersistentVolumeClaim", "v1", false,
       "PersistentVolumeClaims"},
      {"/api/v1/persistentvolumes", "PersistentVolume", "v1", false, "PersistentVolumes"},
      {"/apis/storage.k8s.io/v1/csinodes", "CSINode", "storage.k8s.io/v1", false, "CSINodes"},
      {"/api/v1/namespaces", "Namespace", "v1", false, "Namespaces", /*optional=*/true},
      {"/apis/topology.volcano.sh/v1alpha1/hypernodes", "HyperNode", "topology.volcano.sh/v1alpha1",
       true, "HyperNodes"},
      {"/apis/batch.volcano.sh/v1alpha1/jobs", "Job", "batch.volcano.sh/v1alpha1", true,
       "Volcano Jobs"},
      {"/apis/scheduling.volcano.sh/v1beta1/podgroups", "PodGroup", "scheduling.volcano.sh/v1beta1",
       true, "PodGroups"},
  };
  return collections;
}

void append_snapshot(model::Snapshot& into, model::Snapshot&& from) {
  move_all(into.nodes, from.nodes);
  into.pods.append(std::move(from.pods));
  move_all(into.priority_classes, from.priority_classes);
  move_all(into.pdbs, from.pdbs);
  move_all(into.hyper_nodes, from.hyper_nodes);
  move_all(into.jobs, from.jobs);
  move_all(into.pod_groups, from.pod_groups);
  move_all(into.persistent_volume_claims, from.persistent_volume_claims);
  move_all(into.persistent_volumes, from.persistent_volumes);
  move_all(into.csi_nodes, from.csi_nodes);
  move_all(into.namespaces, from.namespaces);
}

ListResult list_collection(ApiClient& client, const Collection& collection,
                           const ReadOptions& options, PageObserver* observer) {
  ListResult result;
  std::string continue_token;
  int retries = 0;
  while (true) {
    std::string path = collection.path + "?limit=" + std::to_string(options.page_size);
    if (!continue_token.empty()) path += "&continue=" + http::HttpClient::escape(continue_token);
    model::Snapshot page;
    model::JsonSnapshotDecoder decoder(&page);
    if (observer != nullptr) observer->begin_page(collection);
    std::exception_ptr observer_failed;  // never thrown through libcurl's C frames
    StreamOptions stream;
    stream.idle_timeout = options.page_idle_timeout;
    stream.cancel = options.cancel;
    stream.rate_limited = continue_token.empty();  // one token per list, not per page
    try {
      client.stream(
          path,
          [&](std::string_view bytes) {
            decoder.feed(bytes);
            if (observer == nullptr) return true;
            try {
              observer->page_bytes(bytes);
            } catch (...) {
              observer_failed = std::current_exception();
              return false;
            }
            return true;
          },
          stream);
      if (observer_failed) std::rethrow_exception(observer_failed);
      if (options.cancel != nullptr && options.cancel->load()) {
        throw ApiError(0, "Cancelled", "GET " + path + ": cancelled");
      }
    } catch (const ApiError& e) {
      if (observer != nullptr) observer->end_page(false);
      if (e.status() == 410 && !continue_token.empty() &&
          result.restarts < static_cast<size_t>(options.max_restarts)) {
        // The continue token's snapshot is gone: the list starts over, consistently.
        ++result.restarts;
        result.snapshot = model::Snapshot{};
        result.errors.clear();
        result.resource_version.clear();
        continue_token.clear();
        if (observer != nullptr) observer->restart(collection);
        continue;
      }
      if (e.reason() == "Interrupted" && retries < 3) {
        ++retries;  // the page broke off midway: ask for the same page again
        continue;
      }
      throw;
    }
    model::DecodeSummary summary = decoder.finish();
    if (observer != nullptr) observer->end_page(true);
    ++result.pages;
    if (result.resource_version.empty()) result.resource_version = summary.list_resource_version;
    for (model::DecodeError& error : summary.errors) result.errors.push_back(std::move(error));
    append_snapshot(result.snapshot, std::move(page));
    continue_token = summary.list_continue;
    if (continue_token.empty()) break;
  }
  return result;
}

ClusterRead read_cluster(ApiClient& client, const ReadOptions& options, PageObserver* observer) {
  ClusterRead read;
  for (const Collection& collection : plan_collections()) {
    if (collection.custom && !client.serves(collection.api_version)) {
      read.not_installed.push_back(collection.description + " (" + collection.api_version + ")");
      continue;
    }
    ListResult list;
    try {
      list = list_collection(client, collection, options, observer);
    } catch (const ApiError& e) {
      if (e.status() != 403 || !collection.optional) throw;
      // Refused after some pages (the RBAC changed midway): a saved file holds none of it either.
      if (observer != nullptr) observer->restart(collection);
      read.not_permitted.push_back(collection.description + " (" + e.what() + ")");
      continue;
    }
    read.pages += list.pages;
    read.restarts += list.restarts;
    append_snapshot(read.snapshot, std::move(list.snapshot));
    for (model::DecodeError& error : list.errors) read.errors.push_back(std::move(error));
  }
  return read;
}

}  // namespace loadshift::kube
