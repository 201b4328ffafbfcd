// /healthz, /readyz, /metrics and the status page over cpp-httplib.
#include "controller/status_server.h"

#include <httplib.h>
#include <zlib.h>
#include <prometheus/text_serializer.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "report/report_html.h"

namespace loadshift::controller {

std::string parse_listen_address(const std::string& address, std::string* host, int* port) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return "expected HOST:PORT such as 0.0.0.0:10258";
  std::string h = address.substr(0, colon);
  std::string p = address.substr(colon + 1);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  if (h.empty()) h = "0.0.0.0";
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos) {
    return "expected a port number after the last ':', found \"" + p + "\"";
  }
  int n = std::stoi(p);
  if (n > 65535) return "port " + p + " is above 65535";
  *host = h;
  *port = n;
  return "";
}

struct StatusServer::Impl {
  StatusServerOptions options;
  std::shared_ptr<prometheus::Registry> registry;
  std::function<Readiness()> readiness;
  std::function<PublishedPlan()> plan;
  std::string generator;
  // The last page and document rendered, for the view and status they were made of: a request
  // for the same plan is answered from them, and one rendering runs at a time (at 150,000 pods a
  // page is a few MiB: concurrent requests never build several).
  std::mutex render_mutex;
  std::weak_ptr<const report::PlanView> rendered_view;
  std::string rendered_status;
  std::shared_ptr<const std::string> html, json, html_gzip, json_gzip;

  // The page (or the document) of `plan`, rendered once per view and status; gzipped when
  // `gzip` (compressed once too).
  std::shared_ptr<const std::string> rendered(const PublishedPlan& plan, bool want_html,
                                              bool gzip);
  // Answers with the rendered page or document, gzipped when the client takes it.
  void send_rendered(const httplib::Request& req, httplib::Response& res,
                     const PublishedPlan& plan, bool html);
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  int port = 0;
};

StatusServer::StatusServer(StatusServerOptions options,
                           std::shared_ptr<prometheus::Registry> registry,
                           std::function<Readiness()> readiness,
                           std::function<PublishedPlan()> plan, std::string generator)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->registry = std::move(registry);
  impl_->readiness = std::move(readiness);
  impl_->plan = std::move(plan);
  impl_->generator = std::move(generator);
}

namespace {

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// The page and the document change every cycle and belong to no one else.
void set_private(httplib::Response& res) {
  res.set_header("Cache-Control", "no-store");
  res.set_header("X-Content-Type-Options", "nosniff");
}

// Printable ASCII only (a header value cannot hold a line break; other bytes become '?'), and at
// most 1 KiB (proxies refuse long headers; the page has the whole text).
std::string header_value(const std::string& text) {
  constexpr size_t kMax = 1024;
  std::string out;
  for (char c : text) {
    if (out.size() == kMax) {
      out.replace(kMax - 3, 3, "...");
      break;
    }
    out += (c >= 0x20 && c < 0x7f) ? c : (c == '\n' || c == '\r' ? ' ' : '?');
  }
  return out;
}

// When the plan was made and what became of the cycles since: a script reading /plan.json can
// tell a plan that later cycles could not replace.
void set_plan_headers(httplib::Response& res, const PublishedPlan& plan) {
  if (plan.view) res.set_header("X-Loadshift-Plan-At", header_value(plan.view->content.at));
  res.set_header("X-Loadshift-Status", header_value(plan.status));
}

// `text` as a gzip stream (zlib, default level); empty when zlib fails.
std::string gzipped(const std::string& text) {
  if (text.size() > std::numeric_limits<uInt>::max()) return "";  // (sent as it is)
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return "";
  }
  std::string out(deflateBound(&z, static_cast<uLong>(text.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int done = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return done == Z_STREAM_END ? out : "";
}

// True when the client takes gzip: an entry of its Accept-Encoding names gzip or x-gzip (any
// case) with a q-value above 0, or with none.
bool takes_gzip(const httplib::Request& req) {
  std::istringstream accept(req.get_header_value("Accept-Encoding"));
  auto trim = [](std::string text) {
    const size_t from = text.find_first_not_of(" \t");
    const size_t to = text.find_last_not_of(" \t");
    return from == std::string::npos ? std::string() : text.substr(from, to - from + 1);
  };
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  for (std::string entry; std::getline(accept, entry, ',');) {
    std::istringstream parts(entry);
    std::string name;
    std::getline(parts, name, ';');
    name = lower(trim(name));
    if (name != "gzip" && name != "x-gzip") continue;
    double q = 1;
    for (std::string param; std::getline(parts, param, ';');) {
      param = lower(trim(param));
      if (param.rfind("q=", 0) == 0) q = std::strtod(param.c_str() + 2, nullptr);
    }
    if (q > 0) return true;
  }
  return false;
}

// Sends `body` without copying it (it stays alive with the response).
void send_shared(httplib::Response& res, std::shared_ptr<const std::string> body,
                 const char* content_type) {
  const size_t size = body->size();
  res.set_content_provider(size, content_type,
                           [body](size_t offset, size_t length, httplib::DataSink& sink) {
                             sink.write(body->data() + offset, length);
                             return true;
                           });
}

}  // namespace

StatusServer::~StatusServer() {
  stop();
}

std::shared_ptr<const std::string> StatusServer::Impl::rendered(const PublishedPlan& plan,
                                                                bool want_html, bool gzip) {
  std::lock_guard<std::mutex> lock(render_mutex);
  if (rendered_view.lock() != plan.view || rendered_status != plan.status) {
    html.reset();
    json.reset();
    html_gzip.reset();
    json_gzip.reset();
    rendered_view = plan.view;
    rendered_status = plan.status;
  }
  if (want_html && !html) {
    report::HtmlPage page;
    page.title = "loadshift: the last cycle";
    page.generator = generator;
    page.status = plan.status;
    std::ostringstream out;
    report::write_report_html(*plan.view, page, out);
    html = std::make_shared<const std::string>(std::move(out).str());
  }
  if (!want_html && !json) {
    json = std::make_shared<const std::string>(
        report::plan_view_json(*plan.view)
            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
        "\n");
  }
  const std::shared_ptr<const std::string>& plain = want_html ? html : json;
  if (!gzip) return plain;
  std::shared_ptr<const std::string>& packed = want_html ? html_gzip : json_gzip;
  if (!packed) packed = std::make_shared<const std::string>(gzipped(*plain));
  return packed->empty() ? nullptr : packed;
}

void StatusServer::Impl::send_rendered(const httplib::Request& req, httplib::Response& res,
                                       const PublishedPlan& plan, bool want_html) {
  const char* type = want_html ? "text/html; charset=utf-8" : "application/json";
  res.set_header("Vary", "Accept-Encoding");
  if (takes_gzip(req)) {
    if (std::shared_ptr<const std::string> packed = rendered(plan, want_html, true)) {
      res.set_header("Content-Encoding", "gzip");
      send_shared(res, std::move(packed), type);
      return;
    }
  }
  send_shared(res, rendered(plan, want_html, false), type);
}

std::string StatusServer::start() {
  Impl& s = *impl_;
  std::string host;
  int port = 0;
  if (std::string why = parse_listen_address(s.options.address, &host, &port); !why.empty()) {
    return "--metrics-addr \"" + s.options.address + "\": " + why;
  }
  const bool tls = !s.options.tls_cert_file.empty() || !s.options.tls_key_file.empty();
  if (tls) {
    if (s.options.tls_cert_file.empty() || s.options.tls_key_file.empty()) {
      return "--tls-cert-file and --tls-private-key-file go together: give both or neither";
    }
    for (const std::string& file : {s.options.tls_cert_file, s.options.tls_key_file}) {
      if (!std::ifstream(file).good()) return "cannot read " + file;
    }
    auto server = std::make_unique<httplib::SSLServer>(s.options.tls_cert_file.c_str(),
                                                       s.options.tls_key_file.c_str());
    if (!server->is_valid()) {
      return "--tls-cert-file " + s.options.tls_cert_file + " / --tls-private-key-file " +
             s.options.tls_key_file + ": not a usable PEM certificate and key pair";
    }
    s.server = std::move(server);
  } else {
    s.server = std::make_unique<httplib::Server>();
  }
  s.server->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  s.server->Get("/readyz", [&s](const httplib::Request&, httplib::Response& res) {
    Readiness readiness = s.readiness ? s.readiness() : Readiness{true, ""};
    res.status = readiness.ready ? 200 : 503;
    res.set_content((readiness.ready ? "ready\n" : "not ready\n") + readiness.detail, "text/plain");
  });
  s.server->Get("/metrics", [&s](const httplib::Request&, httplib::Response& res) {
    prometheus::TextSerializer serializer;
    res.set_content(serializer.Serialize(s.registry->Collect()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  if (s.plan) {
    s.server->Get("/", [&s](const httplib::Request& req, httplib::Response& res) {
      set_private(res);
      PublishedPlan plan = s.plan();
      set_plan_headers(res, plan);
      if (!plan.view) {
        res.status = 503;
        res.set_content(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>loadshift: no plan</title></head><body><h1>No plan to show</h1>"
            "<p>" +
                escape_html(plan.status) + "</p></body></html>\n",
            "text/html; charset=utf-8");
        return;
      }
      s.send_rendered(req, res, plan, true);
    });
    s.server->Get("/plan.json", [&s](const httplib::Request& req, httplib::Response& res) {
      set_private(res);
      PublishedPlan plan = s.plan();
      set_plan_headers(res, plan);
      if (!plan.view) {
        res.status = 503;
        res.set_content(nlohmann::json{{"error", plan.status}}.dump(
                            -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                            "\n",
                        "application/json");
        return;
      }
      s.send_rendered(req, res, plan, false);
    });
  }
  if (port == 0) {
    s.port = s.server->bind_to_any_port(host);
    if (s.port < 0) return "--metrics-addr \"" + s.options.address + "\": cannot listen";
  } else {
    if (!s.server->bind_to_port(host, port)) {
      return "--metrics-addr \"" + s.options.address +
             "\": cannot listen there (in use, or not an address of this machine)";
    }
    s.port = port;
  }
  s.thread = std::thread([&s] { s.server->listen_after_bind(); });
  // stop() only works once the server runs: wait for it, so an early stop cannot hang.
  for (int i = 0; i < 500 && !s.server->is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "";
}

void StatusServer::stop() {
  if (impl_->server && impl_->thread.joinable()) {
    // stop() is a no-op until the listen loop runs: wait for it (it starts at once).
    for (int i = 0; i < 3000 && !impl_->server->is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (impl_->server) impl_->server->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

int StatusServer::port() const {
  return impl_->port;
}

}  // namespace loadshift::controller
