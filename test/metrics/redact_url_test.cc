// http::redact_url: what a log line, an error or a report may show of a URL.
#include <catch2/catch.hpp>

#include "http/http_client.h"

using loadshift::http::redact_url;

TEST_CASE("redact_url: no user, password, query or fragment", "[http][redact]") {
  CHECK(redact_url("https://u:secret@prom.monitoring:9090/p") == "https://prom.monitoring:9090/p");
  CHECK(redact_url("http://prom:9090/?token=abc&x=1") == "http://prom:9090/");
  CHECK(redact_url("http://prom:9090/api/v1/query#frag") == "http://prom:9090/api/v1/query");
  CHECK(redact_url("http://user@prom") == "http://prom/");
  // A password holding '?' and '/' (encoded, as a URL must) goes whole.
  const std::string shown = redact_url("http://u:pa%3Fss%2Fword@h:80/x");
  CHECK(shown == "http://h:80/x");
  CHECK(shown.find("pa") == std::string::npos);
  // Plain ones are unchanged.
  CHECK(redact_url("http://prometheus-server.monitoring.svc:80") ==
        "http://prometheus-server.monitoring.svc:80");  // as given: nothing to take out
  CHECK(redact_url("https://prom/prefix/api/v1/query") == "https://prom/prefix/api/v1/query");
}

TEST_CASE("redact_url: text that is no URL shows nothing that could be a credential",
          "[http][redact]") {
  CHECK(redact_url("not a url") == "not a url");
  CHECK(redact_url("") == "");
  const std::string odd = redact_url("http://u:p@[bad");
  CHECK(odd.find("u:p") == std::string::npos);
}
