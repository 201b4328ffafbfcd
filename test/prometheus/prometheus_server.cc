#include "test/prometheus/prometheus_server.h"

#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <thread>
#include <vector>

namespace loadshift::testing {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

TempDir::TempDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (mkdtemp(name.data()) == nullptr) {
    throw std::runtime_error(pattern +
                             ": cannot create a temporary directory: " + std::strerror(errno));
  }
  path_ = name.data();
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

namespace {

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The executable `name`: from the environment variable `override_env` when set, else from PATH
// (then /usr/bin, where the Debian package puts it).
std::string find_program(const std::string& name, const char* override_env) {
  if (const char* chosen = std::getenv(override_env); chosen != nullptr && *chosen != '\0') {
    if (access(chosen, X_OK) == 0) return chosen;
    throw PrometheusUnavailable(std::string(override_env) + "=" + chosen +
                                " is not an executable file");
  }
  const char* path_env = std::getenv("PATH");
  std::string dirs = std::string(path_env ? path_env : "") + ":/usr/bin";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(begin, end - begin);
    if (!dir.empty()) {
      std::string candidate = dir + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    begin = end + 1;
  }
  throw PrometheusUnavailable(name +
                              " not found in PATH or /usr/bin (install the Debian package "
                              "`prometheus`: scripts/setup.sh)");
}

std::string log_tail(const fs::path& log, size_t lines = 15) {
  std::ifstream in(log);
  std::deque<std::string> tail;
  std::string line;
  while (std::getline(in, line)) {
    tail.push_back(line);
    if (tail.size() > lines) tail.pop_front();
  }
  std::string text;
  for (const std::string& l : tail) text += "\n    " + l;
  return text.empty() ? std::string(" (empty log)") : text;
}

// Starts argv[0] with stdout and stderr appended to `log`. With `die_with_parent`, the child gets
// SIGTERM when this process ends.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log, bool die_with_parent) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0)
    throw PrometheusUnavailable(log.string() + ": cannot create: " + std::strerror(errno));
  int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    if (die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(126);
    }
    if (in >= 0) dup2(in, 0);
    dup2(out, 1);
    dup2(out, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int fork_errno = errno;
  close(out);
  if (in >= 0) close(in);
  if (pid < 0)
    throw PrometheusUnavailable(std::string("fork failed: ") + std::strerror(fork_errno));
  return pid;
}

// Waits for `pid`; returns its exit status as a sentence ("exit code 1", "killed by signal 9").
std::string wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return std::string("waitpid failed: ") + std::strerror(errno);
  }
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

// A loopback port nobody listens on right now (the kernel's pick for port 0).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw PrometheusUnavailable(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::string why = std::strerror(errno);
    close(fd);
    throw PrometheusUnavailable("cannot bind a loopback port: " + why);
  }
  close(fd);
  return ntohs(addr.sin_port);
}

size_t discard(char*, size_t size, size_t count, void*) {
  return size * count;
}

// True when GET `url` answers 200.
bool answers_ok(const std::string& url) {
  static const bool curl_ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
  if (!curl_ready) return false;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return false;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 2000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &discard);
  long code = 0;
  bool ok = curl_easy_perform(curl) == CURLE_OK &&
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK && code == 200;
  curl_easy_cleanup(curl);
  return ok;
}

void stop(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  int status = 0;
  while (Clock::now() < deadline) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

}  // namespace

std::unique_ptr<PrometheusServer> PrometheusServer::start(const fs::path& dir,
                                                          const fs::path& openmetrics,
                                                          std::chrono::seconds ready_timeout) {
  const std::string promtool = find_program("promtool", "LOADSHIFT_PROMTOOL");
  const std::string prometheus = find_program("prometheus", "LOADSHIFT_PROMETHEUS");
  std::unique_ptr<PrometheusServer> server(new PrometheusServer());

  const fs::path data = dir / "data";
  const fs::path import_log = dir / "promtool.log";
  auto import_start = Clock::now();
  pid_t importer = spawn(
      {promtool, "tsdb", "create-blocks-from", "openmetrics", openmetrics.string(), data.string()},
      import_log, true);
  std::string import_status = wait_for(importer);
  server->import_seconds_ = seconds_since(import_start);
  if (import_status != "exit code 0") {
    throw PrometheusUnavailable("promtool tsdb create-blocks-from openmetrics " +
                                openmetrics.string() + " failed (" + import_status +
                                "):" + log_tail(import_log));
  }

  const fs::path config = dir / "prometheus.yml";
  {
    std::ofstream out(config);
    out << "# loadshift test server: nothing is scraped, queries read the imported blocks.\n"
           "global:\n  scrape_interval: 15s\n";
    if (!out) throw PrometheusUnavailable(config.string() + ": cannot write the configuration");
  }

  const fs::path log = dir / "prometheus.log";
  std::string last_failure;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = free_port();
    const std::string listen = "127.0.0.1:" + std::to_string(port);
    auto start = Clock::now();
    // Imported blocks lie in the past; time retention counts from the newest block, and a large
    // value keeps any of them from being deleted as the test's fixed dates age.
    pid_t pid = spawn({prometheus, "--config.file=" + config.string(),
                       "--storage.tsdb.path=" + data.string(), "--web.listen-address=" + listen,
                       "--storage.tsdb.retention.time=100y", "--log.level=info"},
                      log, true);
    const std::string address = "http://" + listen;
    while (true) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        std::string tail = log_tail(log);
        last_failure =
            "prometheus exited during startup (" +
            std::string(WIFEXITED(status) ? "exit code " + std::to_string(WEXITSTATUS(status))
                                          : "killed by a signal") +
            "):" + tail;
        if (tail.find("address already in use") != std::string::npos) break;  // next port
        throw PrometheusUnavailable(last_failure);
      }
      if (answers_ok(address + "/-/ready")) {
        server->pid_ = pid;
        server->address_ = address;
        server->startup_seconds_ = seconds_since(start);
        return server;
      }
      if (Clock::now() - start > ready_timeout) {
        stop(pid);
        throw PrometheusUnavailable("prometheus on " + listen + " not ready after " +
                                    std::to_string(ready_timeout.count()) + " s:" + log_tail(log));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  throw PrometheusUnavailable(last_failure);
}

PrometheusServer::~PrometheusServer() {
  stop(pid_);
}

double PrometheusServer::peak_rss_mib() const {
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}

}  // namespace loadshift::testing
