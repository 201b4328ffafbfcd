// Credentials: a static token, a token file re-read when it changes, or an exec plugin whose
// ExecCredential is cached until it expires.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "kube/cluster_access.h"
#include "model/rfc3339.h"

extern char** environ;

namespace loadshift::kube {
namespace {

using Clock = std::chrono::system_clock;

// A credential expiring within this margin is fetched again, as client-go does.
constexpr std::chrono::seconds kExpiryMargin{10};

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
    text.pop_back();
  size_t start = 0;
  while (start < text.size() && (text[start] == ' ' || text[start] == '\n')) ++start;
  return text.substr(start);
}

struct ProcessResult {
  int status = 0;
  std::string out, err;
};

// Runs `plugin` with KUBERNETES_EXEC_INFO set, as kubectl does, and collects its output.
ProcessResult run_plugin(const ExecPlugin& plugin) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) throw ConfigError(plugin.origin + ": cannot create a pipe");
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    throw ConfigError(plugin.origin + ": cannot create a pipe");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);

  // The caller's environment, then the kubeconfig's env, then KUBERNETES_EXEC_INFO: a later
  // value of a name replaces the earlier one, as kubectl does.
  std::map<std::string, std::string> environment;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    size_t equals = entry.find('=');
    if (equals != std::string::npos)
      environment[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  for (const auto& [name, value] : plugin.env) environment[name] = value;
  nlohmann::json info = {{"apiVersion", plugin.api_version},
                         {"kind", "ExecCredential"},
                         {"spec", {{"interactive", false}}}};
  environment["KUBERNETES_EXEC_INFO"] = info.dump();
  std::vector<std::string> env_text;
  for (const auto& [name, value] : environment) env_text.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> arg_text{plugin.command};
  arg_text.insert(arg_text.end(), plugin.args.begin(), plugin.args.end());
  std::vector<char*> argv;
  for (std::string& a : arg_text) argv.push_back(a.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  int spawned =
      posix_spawnp(&pid, plugin.command.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (spawned != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    std::string hint = plugin.install_hint.empty() ? "" : " (" + plugin.install_hint + ")";
    throw ConfigError(plugin.origin + ": cannot run the exec credential plugin " + plugin.command +
                      ": " + std::strerror(spawned) + hint);
  }
  ProcessResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_count = 2;
  char buffer[4096];
  while (open_count > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        if (sinks[i]->size() < (size_t{16} << 20)) sinks[i]->append(buffer, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.status = status;
  return result;
}

}  // namespace

struct Credentials::State {
  enum class Kind { kNone, kToken, kTokenFile, kExec } kind = Kind::kNone;
  std::string token;
  std::string path;
  ExecPlugin plugin;

  mutable std::mutex mutex;
  // Token file: the text and the file's change time it was read at.
  mutable std::string file_token;
  mutable timespec file_mtime{0, 0};
  mutable ino_t file_inode = 0;
  // Exec: the cached token and when it expires (nullopt: never).
  mutable std::string exec_token;
  mutable std::optional<Clock::time_point> exec_expiry;
  mutable bool exec_cached = false;

  std::string read_token_file() const {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) {
      throw ConfigError("token file " + path + ": " + std::strerror(errno));
    }
    // A projected token is replaced by a symlink swap: the inode or the change time moves.
    if (!file_token.empty() && info.st_ino == file_inode &&
        info.st_mtim.tv_sec == file_mtime.tv_sec && info.st_mtim.tv_nsec == file_mtime.tv_nsec) {
      return file_token;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError("token file " + path + ": cannot be read");
    std::string text = trim(std::string(std::istreambuf_iterator<char>(in), {}));
    if (text.empty()) throw ConfigError("token file " + path + " is empty");
    file_token = text;
    file_mtime = info.st_mtim;
    file_inode = info.st_ino;
    return file_token;
  }

  std::string exec_credential() const {
    if (exec_cached && (!exec_expiry || Clock::now() + kExpiryMargin < *exec_expiry)) {
      return exec_token;
    }
    ProcessResult run = run_plugin(plugin);
    if (!WIFEXITED(run.status) || WEXITSTATUS(run.status) != 0) {
      std::string why = WIFEXITED(run.status)
                            ? "exited with status " + std::to_string(WEXITSTATUS(run.status))
                            : std::string("was killed");
      throw ConfigError(plugin.origin + ": exec credential plugin " + plugin.command + " " + why +
                        (run.err.empty() ? "" : ": " + trim(run.err)));
    }
    nlohmann::json doc = nlohmann::json::parse(run.out, nullptr, false);
    const std::string prefix =
        plugin.origin + ": exec credential plugin " + plugin.command + " printed ";
    auto text_of = [&](const char* key) {
      auto it = doc.find(key);
      return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (!doc.is_object() || text_of("kind") != "ExecCredential") {
      throw ConfigError(prefix + "no ExecCredential JSON object");
    }
    if (text_of("apiVersion") != plugin.api_version) {
      throw ConfigError(prefix + "apiVersion \"" + text_of("apiVersion") + "\", expected \"" +
                        plugin.api_version + "\" as the kubeconfig asks");
    }
    const nlohmann::json* status = doc.contains("status") ? &doc["status"] : nullptr;
    if (status == nullptr || !status->is_object()) throw ConfigError(prefix + "no status");
    if (!status->contains("token") || !(*status)["token"].is_string() ||
        (*status)["token"].get<std::string>().empty()) {
      throw ConfigError(prefix +
                        "no status.token (client certificates from exec plugins are "
                        "not supported; use a token)");
    }
    exec_token = (*status)["token"].get<std::string>();
    exec_expiry.reset();
    if (status->contains("expirationTimestamp") && (*status)["expirationTimestamp"].is_string()) {
      exec_expiry = model::parse_rfc3339((*status)["expirationTimestamp"].get<std::string>());
      if (!exec_expiry) throw ConfigError(prefix + "an expirationTimestamp that is not RFC 3339");
    }
    exec_cached = true;
    return exec_token;
  }
};

Credentials Credentials::from_token(std::string token) {
  Credentials c;
  c.state_ = std::make_shared<State>();
  c.state_->kind = State::Kind::kToken;
  c.state_->token = std::move(token);
  return c;
}

Credentials Credentials::from_token_file(std::string path) {
  Credentials c;
  c.state_ = std::make_shared<State>();
  c.state_->kind = State::Kind::kTokenFile;
  c.state_->path = std::move(path);
  return c;
}

Credentials Credentials::from_exec(ExecPlugin plugin) {
  Credentials c;
  c.state_ = std::make_shared<State>();
  c.state_->kind = State::Kind::kExec;
  c.state_->plugin = std::move(plugin);
  return c;
}

std::string Credentials::authorization() const {
  if (!state_) return "";
  std::lock_guard<std::mutex> lock(state_->mutex);
  switch (state_->kind) {
    case State::Kind::kNone:
      return "";
    case State::Kind::kToken:
      return "Bearer " + state_->token;
    case State::Kind::kTokenFile:
      return "Bearer " + state_->read_token_file();
    case State::Kind::kExec:
      return "Bearer " + state_->exec_credential();
  }
  return "";
}

void Credentials::invalidate() const {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->exec_cached = false;
  state_->file_token.clear();
}

std::string Credentials::describe() const {
  if (!state_) return "no credentials";
  switch (state_->kind) {
    case State::Kind::kNone:
      return "no credentials";
    case State::Kind::kToken:
      return "a bearer token";
    case State::Kind::kTokenFile:
      return "the token in " + state_->path;
    case State::Kind::kExec:
      return "the token of exec plugin " + state_->plugin.command;
  }
  return "no credentials";
}

}  // namespace loadshift::kube
