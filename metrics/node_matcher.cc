// Matching series to nodes by label value.
#include "metrics/node_matcher.h"

#include <arpa/inet.h>

#include <cstdint>

namespace loadshift::metrics {

namespace {

constexpr size_t kShared = SIZE_MAX;
constexpr size_t kExamples = 3;

bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The canonical text of an IP address (IPv6 "fd00:0::01" -> "fd00::1"), or the text unchanged
// when it is not an address.
std::string canonical_ip(std::string_view text) {
  std::string copy(text);
  unsigned char buffer[16];
  char out[INET6_ADDRSTRLEN];
  if (copy.find(':') != std::string::npos) {
    if (inet_pton(AF_INET6, copy.c_str(), buffer) == 1 &&
        inet_ntop(AF_INET6, buffer, out, sizeof out) != nullptr) {
      return out;
    }
    return copy;
  }
  if (inet_pton(AF_INET, copy.c_str(), buffer) == 1 &&
      inet_ntop(AF_INET, buffer, out, sizeof out) != nullptr) {
    return out;
  }
  return copy;
}

}  // namespace

std::string_view strip_port(std::string_view value) {
  if (!value.empty() && value.front() == '[') {
    size_t close = value.find(']');
    if (close == std::string_view::npos) return value;
    std::string_view rest = value.substr(close + 1);
    if (rest.empty() || (rest.front() == ':' && all_digits(rest.substr(1)))) {
      return value.substr(1, close - 1);
    }
    return value;
  }
  size_t colon = value.find(':');
  if (colon == std::string_view::npos) return value;
  if (value.find(':', colon + 1) != std::string_view::npos) return value;  // bare IPv6
  if (!all_digits(value.substr(colon + 1))) return value;
  return value.substr(0, colon);
}

NodeMatcher::NodeMatcher(std::span<const NodeIdentity> nodes, std::string node_label,
                         NodeMatchMode mode)
    : nodes_(nodes), node_label_(std::move(node_label)), mode_(mode) {
  by_name_.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    by_name_.emplace(nodes[i].name, i);
    if (nodes[i].internal_ip.empty()) continue;
    auto [it, inserted] = by_ip_.emplace(canonical_ip(nodes[i].internal_ip), i);
    if (!inserted && it->second != kShared) {
      shared_ip_warnings_.push_back("InternalIP " + it->first + " is shared by nodes " +
                                    nodes[it->second].name + " and " + nodes[i].name +
                                    ": series are not matched to either by IP");
      it->second = kShared;
    }
  }
}

std::optional<size_t> NodeMatcher::find(std::string_view label_value) const {
  std::string_view host = strip_port(label_value);
  if (mode_ != NodeMatchMode::kInternalIp) {
    if (auto it = by_name_.find(label_value); it != by_name_.end()) return it->second;
    if (host != label_value) {
      if (auto it = by_name_.find(host); it != by_name_.end()) return it->second;
    }
  }
  if (mode_ != NodeMatchMode::kName && !by_ip_.empty()) {
    auto it = by_ip_.find(canonical_ip(host));
    if (it != by_ip_.end() && it->second != kShared) return it->second;
  }
  return std::nullopt;
}

SeriesMatch NodeMatcher::match(const std::vector<Sample>& samples) const {
  SeriesMatch out;
  out.by_node.resize(nodes_.size());
  for (const Sample& sample : samples) {
    auto label = sample.labels.find(node_label_);
    if (label == sample.labels.end()) {
      ++out.unlabeled;
      if (out.unlabeled_examples.size() < kExamples) {
        out.unlabeled_examples.push_back(describe_labels(sample.labels));
      }
      continue;
    }
    std::optional<size_t> node = find(label->second);
    if (!node) {
      ++out.unmatched;
      if (out.unmatched_examples.size() < kExamples) {
        out.unmatched_examples.push_back(label->second);
      }
      continue;
    }
    out.by_node[*node].push_back(&sample);
  }
  return out;
}

std::string NodeMatcher::expected_for(size_t node) const {
  const NodeIdentity& identity = nodes_[node];
  bool by_name = mode_ != NodeMatchMode::kInternalIp;
  bool by_ip = mode_ != NodeMatchMode::kName;
  std::string out;
  if (by_name) out = "name " + identity.name;
  if (by_ip) {
    if (!out.empty()) out += " or ";
    out += identity.internal_ip.empty() ? "InternalIP (node has none)"
                                        : "InternalIP " + identity.internal_ip;
  }
  return out;
}

}  // namespace loadshift::metrics
