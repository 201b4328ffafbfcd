// read_cluster(): paginated lists streamed into the decoder.
#include "kube/cluster_reader.h"

#include <iterator>

#include "http/http_client.h"
#include "model/protobuf_decode.h"

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

namespace {

// A page's decoder, chosen by the answer's Content-Type at its first bytes.
class PageDecoder {
 public:
  PageDecoder(model::Snapshot* page, const std::string* content_type)
      : page_(page), content_type_(content_type) {}
  void feed(std::string_view bytes) {
    if (!json_ && !protobuf_) {
      if (content_type_ != nullptr && model::is_protobuf_content_type(*content_type_)) {
        protobuf_.emplace(page_);
      } else {
        json_.emplace(page_);
      }
    }
    json_ ? json_->feed(bytes) : protobuf_->feed(bytes);
  }
  model::DecodeSummary finish() {
    if (protobuf_) return protobuf_->finish();
    if (!json_) json_.emplace(page_);
    return json_->finish();
  }

 private:
  model::Snapshot* page_;
  const std::string* content_type_;
  std::optional<model::JsonSnapshotDecoder> json_;
  std::optional<model::ProtobufSnapshotDecoder> protobuf_;
};

}  // namespace

std::string to_string(ListSource source, const std::string& not_older_than) {
  switch (source) {
    case ListSource::kWatchCache:
      return "watch cache";
    case ListSource::kNotOlderThan:
      return "watch cache, not older than " + not_older_than;
    case ListSource::kConsistent:
      break;
  }
  return "consistent read";
}

namespace {

// The server would not serve the list from its watch cache, but may read it consistently: a
// version it cannot serve (410 Expired: an old one it reads from etcd; 504 "Too large resource
// version"), or a parameter it does not know (400, 422). Not the RBAC's answer (401, 403), nor a
// missing collection (404), nor an overloaded server (429, 5xx but 504): those stand either way.
bool refused_source(const ApiError& e) {
  return e.status() == 400 || e.status() == 410 || e.status() == 422 || e.status() == 504;
}

}  // namespace

ListResult list_collection(ApiClient& client, const Collection& collection,
                           const ReadOptions& options, PageObserver* observer) {
  ListResult result;
  result.source = options.source;
  if (result.source == ListSource::kNotOlderThan && options.not_older_than.empty()) {
    result.source = ListSource::kWatchCache;
  }
  std::string continue_token;
  int retries = 0;
  while (true) {
    // The first page names the source; the pages after it only their continue token (the
    // server refuses a resourceVersion beside one).
    // kNotOlderThan goes without a limit: with one, a v1.28 server skips its watch cache and
    // reads etcd, page by page; without, its watch cache answers with its current state.
    std::string path = collection.path + "?";
    if (!continue_token.empty()) {
      path += "limit=" + std::to_string(options.page_size) +
              "&continue=" + http::HttpClient::escape(continue_token);
    } else if (result.source == ListSource::kWatchCache) {
      path += "limit=" + std::to_string(options.page_size) + "&resourceVersion=0";
    } else if (result.source == ListSource::kNotOlderThan) {
      path += "resourceVersion=" + http::HttpClient::escape(options.not_older_than) +
              "&resourceVersionMatch=NotOlderThan";
    } else {
      path += "limit=" + std::to_string(options.page_size);
    }
    model::Snapshot page;
    std::string content_type;
    PageDecoder decoder(&page, &content_type);
    if (observer != nullptr) observer->begin_page(collection);
    std::exception_ptr observer_failed;  // never thrown through libcurl's C frames
    StreamOptions stream;
    if (options.protobuf && observer == nullptr && collection.api_version == "v1" &&
        (collection.kind == "Pod" || collection.kind == "Node")) {
      stream.accept = std::string(model::kProtobufContentType) + ", application/json";
      stream.content_type = &content_type;
    }
    stream.idle_timeout = options.page_idle_timeout;
    stream.cancel = options.cancel;
    stream.rate_limited = continue_token.empty();  // one token per list, not per page
    // A cache that lags answers 504 after its wait: read consistently at once instead.
    stream.retry_gateway_timeout = !(continue_token.empty() && result.source != ListSource::kConsistent);
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
      if (continue_token.empty() && result.source != ListSource::kConsistent && refused_source(e)) {
        // Not from the cache: the same list as a consistent read.
        result.refused = to_string(result.source, options.not_older_than) + ": " + e.what();
        result.source = ListSource::kConsistent;
        if (observer != nullptr) observer->restart(collection);
        continue;
      }
      if (e.status() == 410 && !continue_token.empty() &&
          result.restarts < static_cast<size_t>(options.max_restarts)) {
        // The continue token's snapshot is gone: the list starts over from its first page.
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
    if (!list.refused.empty()) ++read.consistent_fallbacks;
    append_snapshot(read.snapshot, std::move(list.snapshot));
    for (model::DecodeError& error : list.errors) read.errors.push_back(std::move(error));
  }
  return read;
}

}  // namespace loadshift::kube
