// Where the Kubernetes API server is and how to talk to it, as kubectl and client-go find it:
// a kubeconfig (--kubeconfig, else $KUBECONFIG, a list of files merged as kubectl merges them,
// else ~/.kube/config) with its current context or --context, else the in-cluster service
// account (KUBERNETES_SERVICE_HOST/_PORT, the token and CA under
// /var/run/secrets/kubernetes.io/serviceaccount).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "http/http_client.h"

namespace loadshift::kube {

// A configuration that cannot be used; the message names the file, the context or the field and
// what was expected ("kubeconfig /home/u/.kube/config: context \"prod\" names user \"x\", which
// is not in any kubeconfig file").
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An exec credential plugin (users[].user.exec), run as kubectl runs it.
struct ExecPlugin {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;      // relative paths resolve against the kubeconfig's directory
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  std::string origin;  // "kubeconfig FILE, user NAME", for messages
};

// How requests prove who sends them. At most one of token, token_file and exec is used (in
// that order); client certificates live in ClusterAccess::tls.
class Credentials {
 public:
  Credentials() = default;
  static Credentials from_token(std::string token);
  // The file is read again whenever it changes (projected service-account tokens rotate).
  static Credentials from_token_file(std::string path);
  static Credentials from_exec(ExecPlugin plugin);

  // The Authorization header value ("Bearer ..."), or empty for none. Throws ConfigError when a
  // token file cannot be read or the exec plugin fails (its message names the command and what
  // it printed). Thread-safe; an exec credential is cached until its expirationTimestamp.
  std::string authorization() const;
  // Forgets a cached exec credential, after the server refused it (401).
  void invalidate() const;
  // "token", "token file /path", "exec plugin aws", "none": for messages.
  std::string describe() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

struct ClusterAccess {
  std::string server;  // "https://10.0.0.1:6443", no trailing slash
  http::TlsSettings tls;
  std::string proxy;  // proxy-url
  Credentials credentials;
  // Where it came from: "kubeconfig /home/u/.kube/config, context prod", "in-cluster service
  // account": named in every error so a person knows which settings to fix.
  std::string origin;
};

struct AccessOptions {
  std::string kubeconfig;  // --kubeconfig; empty: $KUBECONFIG, else ~/.kube/config
  std::string context;     // --context; empty: the current-context
};

// Environment the lookup reads; tests give their own.
struct Environment {
  std::string kubeconfig;    // $KUBECONFIG
  std::string home;          // $HOME
  std::string service_host;  // $KUBERNETES_SERVICE_HOST
  std::string service_port;  // $KUBERNETES_SERVICE_PORT
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  static Environment current();
};

// Finds the cluster as described at the top. Throws ConfigError naming what is missing or bad.
ClusterAccess find_cluster(const AccessOptions& options, const Environment& env);

// The in-cluster service account: server https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT,
// CA file ca.crt and token file token of `env.service_account_dir`. Throws ConfigError when the
// variables or files are missing.
ClusterAccess in_cluster(const Environment& env);

// Reads the kubeconfig files (merged in order: the first file to define a cluster, user or
// context name wins; current-context from the first file that sets one) and resolves `context`
// (empty: current-context). Throws ConfigError.
ClusterAccess from_kubeconfig(const std::vector<std::string>& files, const std::string& context);

}  // namespace loadshift::kube
