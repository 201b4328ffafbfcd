// The http(s) URL check behind metricsProviders[].prometheus.url.
#include <catch2/catch.hpp>

#include "policy/http_url.h"

using loadshift::policy::check_http_url;

TEST_CASE("http and https URLs with a host are accepted", "[policy][url]") {
  for (const char* url : {"http://prometheus", "https://prometheus.monitoring.svc:9090",
                          "http://prometheus-server.kube-system.svc.cluster.local:80/prometheus/",
                          "HTTP://Prom:1", "https://user:secret@prom.example.com/?a=b#c",
                          "http://[::1]:9090", "http://10.0.0.1:65535/api"}) {
    INFO(url);
    CHECK(check_http_url(url) == "");
  }
}

TEST_CASE("URLs without scheme, host or with a bad port are rejected", "[policy][url]") {
  CHECK(check_http_url("") == "it has no scheme (http:// or https://)");
  CHECK(check_http_url("prometheus:9090") == "it has no scheme (http:// or https://)");
  CHECK(check_http_url("tcp://prom:9090") == "the scheme must be http or https, found \"tcp\"");
  CHECK(check_http_url("http://") == "no host");
  CHECK(check_http_url("http://:9090") == "no host");
  CHECK(check_http_url("http://prom:") == "empty port");
  CHECK(check_http_url("http://prom:0") == "port 0 is not in 1..65535");
  CHECK(check_http_url("http://prom:90a") == "invalid port \"90a\"");
  CHECK(check_http_url("http://prom:123456") == "invalid port \"123456\"");
  CHECK(check_http_url("http://pro m") == "it contains whitespace or a control character");
  CHECK(check_http_url("http://prom$x/") == "invalid host \"prom$x\"");
  CHECK(check_http_url("http://[::1") == "unterminated IPv6 address in the host");
  CHECK(check_http_url("http://[zz]") == "invalid IPv6 address in the host");
  CHECK(check_http_url("http://[::1]x") == "unexpected text after the IPv6 address");
}
