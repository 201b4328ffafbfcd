// Checking the http(s) URLs a policy names (metricsProviders[].prometheus.url, LoadAware's
// metrics.address): what Go's url.Parse would accept and a client can actually connect to.
#pragma once

#include <string>
#include <string_view>

namespace loadshift::policy {

// Returns empty when `text` is an absolute http or https URL with a host (and, if given, a port
// in 1..65535); otherwise what is wrong with it ("the scheme must be http or https", ...).
std::string check_http_url(std::string_view text);

}  // namespace loadshift::policy
