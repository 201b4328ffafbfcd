// How the kube tests reach the fake API server: its URL and CA, a token, no rate limit, short
// backoffs.
#pragma once

#include <chrono>
#include <string>

#include "kube/api_client.h"
#include "test/kube/fake_api_server.h"

namespace loadshift::testing {

inline kube::ClusterAccess access_to(const FakeApiServer& server,
                                     const std::string& token = "admin-token",
                                     const std::string& origin = "test") {
  kube::ClusterAccess access;
  access.server = server.url();
  access.tls.ca_file = server.ca_file();
  if (!token.empty()) access.credentials = kube::Credentials::from_token(token);
  access.origin = origin;
  return access;
}

inline kube::ClientOptions fast_client() {
  kube::ClientOptions options;
  options.rate.qps = 0;
  options.first_backoff = std::chrono::milliseconds(10);
  options.max_backoff = std::chrono::milliseconds(50);
  return options;
}

}  // namespace loadshift::testing
