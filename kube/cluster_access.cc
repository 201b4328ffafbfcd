// Finding the cluster: kubeconfig files (merged as kubectl merges them) or the in-cluster
// service account.
#include "kube/cluster_access.h"

#include <openssl/evp.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace loadshift::kube {
namespace {

namespace fs = std::filesystem;

struct Named {
  YAML::Node value;
  std::string file;  // the kubeconfig it came from (relative paths resolve against its folder)
};

struct MergedConfig {
  std::map<std::string, Named> clusters, users, contexts;
  std::string current_context;
  std::string files;  // "a, b" for messages
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("kubeconfig " + path + ": cannot be read");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// kubectl's rule: the first file that defines a name wins.
void merge_list(const YAML::Node& list, const char* inner, const std::string& file,
                std::map<std::string, Named>& into) {
  if (!list) return;
  if (!list.IsSequence()) {
    throw ConfigError("kubeconfig " + file + ": expected a list of " + inner + "s");
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const YAML::Node entry = list[i];
    if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar()) {
      throw ConfigError("kubeconfig " + file + ": " + inner + "s[" + std::to_string(i) +
                        "] has no name");
    }
    std::string name = entry["name"].Scalar();
    YAML::Node value = entry[inner];
    if (!value || value.IsNull()) value = YAML::Node(YAML::NodeType::Map);
    if (!value.IsMap()) {
      throw ConfigError("kubeconfig " + file + ": " + inner + " " + name + ": expected a mapping");
    }
    into.emplace(name, Named{value, file});
  }
}

MergedConfig merge(const std::vector<std::string>& files) {
  MergedConfig merged;
  for (const std::string& file : files) {
    merged.files += (merged.files.empty() ? "" : ", ") + file;
    YAML::Node doc;
    try {
      doc = YAML::Load(read_text(file));
    } catch (const YAML::Exception& e) {
      throw ConfigError("kubeconfig " + file + ":" + std::to_string(e.mark.line + 1) +
                        ": not YAML: " + e.msg);
    }
    if (!doc || doc.IsNull()) continue;  // an empty file adds nothing
    if (!doc.IsMap())
      throw ConfigError("kubeconfig " + file + ": expected a mapping (kind: Config)");
    merge_list(doc["clusters"], "cluster", file, merged.clusters);
    merge_list(doc["users"], "user", file, merged.users);
    merge_list(doc["contexts"], "context", file, merged.contexts);
    if (merged.current_context.empty() && doc["current-context"] &&
        doc["current-context"].IsScalar()) {
      merged.current_context = doc["current-context"].Scalar();
    }
  }
  return merged;
}

std::string text_field(const Named& owner, const char* key, const std::string& where) {
  YAML::Node v = owner.value[key];
  if (!v || v.IsNull()) return "";
  if (!v.IsScalar()) throw ConfigError(where + ": " + key + ": expected a string");
  return v.Scalar();
}

bool bool_field(const Named& owner, const char* key, const std::string& where) {
  YAML::Node v = owner.value[key];
  if (!v || v.IsNull()) return false;
  if (v.IsScalar() && (v.Scalar() == "true" || v.Scalar() == "false")) return v.Scalar() == "true";
  throw ConfigError(where + ": " + key + ": expected true or false");
}

// A path from a kubeconfig, relative to the kubeconfig's folder.
std::string resolve_path(const std::string& path, const std::string& file) {
  if (path.empty() || fs::path(path).is_absolute()) return path;
  return (fs::path(file).parent_path() / path).lexically_normal().string();
}

std::string decode_base64(const std::string& text, const std::string& where) {
  std::string clean;
  for (char c : text) {
    if (c != '\n' && c != '\r' && c != ' ') clean += c;
  }
  if (clean.size() % 4 != 0)
    throw ConfigError(where + ": not base64 (length " + std::to_string(clean.size()) + ")");
  std::string out(clean.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(clean.data()),
                          static_cast<int>(clean.size()));
  if (n < 0) throw ConfigError(where + ": not base64");
  size_t padding = 0;
  if (!clean.empty() && clean.back() == '=') ++padding;
  if (clean.size() > 1 && clean[clean.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

ExecPlugin read_exec(const Named& user, const std::string& where) {
  YAML::Node exec = user.value["exec"];
  if (!exec.IsMap()) throw ConfigError(where + ": exec: expected a mapping");
  Named node{exec, user.file};
  ExecPlugin plugin;
  plugin.origin = where;
  plugin.api_version = text_field(node, "apiVersion", where + ": exec");
  if (plugin.api_version != "client.authentication.k8s.io/v1" &&
      plugin.api_version != "client.authentication.k8s.io/v1beta1") {
    throw ConfigError(where + ": exec: apiVersion \"" + plugin.api_version +
                      "\": expected client.authentication.k8s.io/v1 or v1beta1");
  }
  plugin.command = text_field(node, "command", where + ": exec");
  if (plugin.command.empty()) throw ConfigError(where + ": exec: command is missing");
  // kubectl resolves a command with a path separator against the kubeconfig's folder.
  if (plugin.command.find('/') != std::string::npos) {
    plugin.command = resolve_path(plugin.command, user.file);
  }
  if (YAML::Node args = exec["args"]; args && !args.IsNull()) {
    if (!args.IsSequence()) throw ConfigError(where + ": exec: args: expected a list");
    for (const auto& a : args) plugin.args.push_back(a.Scalar());
  }
  if (YAML::Node env = exec["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) throw ConfigError(where + ": exec: env: expected a list");
    for (const auto& e : env) {
      if (!e.IsMap() || !e["name"])
        throw ConfigError(where + ": exec: env: expected {name, value}");
      plugin.env.emplace_back(e["name"].Scalar(), e["value"] ? e["value"].Scalar() : "");
    }
  }
  plugin.install_hint = text_field(node, "installHint", where + ": exec");
  return plugin;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ':')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

Environment Environment::current() {
  Environment env;
  auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v == nullptr ? "" : v);
  };
  env.kubeconfig = get("KUBECONFIG");
  env.home = get("HOME");
  env.service_host = get("KUBERNETES_SERVICE_HOST");
  env.service_port = get("KUBERNETES_SERVICE_PORT");
  return env;
}

ClusterAccess from_kubeconfig(const std::vector<std::string>& files, const std::string& context) {
  MergedConfig merged = merge(files);
  const std::string origin = "kubeconfig " + merged.files;
  std::string name = context.empty() ? merged.current_context : context;
  if (name.empty()) {
    throw ConfigError(origin + ": no current-context is set; give --context NAME (contexts: " +
                      [&] {
                        std::string list;
                        for (const auto& [n, v] : merged.contexts)
                          list += (list.empty() ? "" : ", ") + n;
                        return list.empty() ? std::string("none") : list;
                      }() +
                      ")");
  }
  auto ctx = merged.contexts.find(name);
  if (ctx == merged.contexts.end()) {
    throw ConfigError(origin + ": context \"" + name + "\" is not defined");
  }
  const std::string ctx_where = origin + ", context " + name;
  std::string cluster_name = text_field(ctx->second, "cluster", ctx_where);
  std::string user_name = text_field(ctx->second, "user", ctx_where);
  auto cluster = merged.clusters.find(cluster_name);
  if (cluster == merged.clusters.end()) {
    throw ConfigError(ctx_where + ": cluster \"" + cluster_name + "\" is not defined");
  }

  ClusterAccess access;
  access.origin = ctx_where;
  const std::string cluster_where = origin + ", cluster " + cluster_name;
  access.server = text_field(cluster->second, "server", cluster_where);
  if (access.server.empty()) throw ConfigError(cluster_where + ": server is missing");
  while (!access.server.empty() && access.server.back() == '/') access.server.pop_back();
  if (access.server.rfind("https://", 0) != 0 && access.server.rfind("http://", 0) != 0) {
    throw ConfigError(cluster_where + ": server \"" + access.server +
                      "\": expected an http(s) URL");
  }
  access.tls.ca_file = resolve_path(
      text_field(cluster->second, "certificate-authority", cluster_where), cluster->second.file);
  std::string ca_data = text_field(cluster->second, "certificate-authority-data", cluster_where);
  if (!ca_data.empty()) {
    access.tls.ca_pem = decode_base64(ca_data, cluster_where + ": certificate-authority-data");
    access.tls.ca_file.clear();  // data wins over the file, as in client-go
  }
  access.tls.insecure_skip_verify =
      bool_field(cluster->second, "insecure-skip-tls-verify", cluster_where);
  access.tls.server_name = text_field(cluster->second, "tls-server-name", cluster_where);
  access.proxy = text_field(cluster->second, "proxy-url", cluster_where);

  if (!user_name.empty()) {
    auto user = merged.users.find(user_name);
    if (user == merged.users.end()) {
      throw ConfigError(ctx_where + ": user \"" + user_name + "\" is not defined");
    }
    const std::string user_where = origin + ", user " + user_name;
    const Named& u = user->second;
    access.tls.client_cert_file =
        resolve_path(text_field(u, "client-certificate", user_where), u.file);
    access.tls.client_key_file = resolve_path(text_field(u, "client-key", user_where), u.file);
    if (std::string data = text_field(u, "client-certificate-data", user_where); !data.empty()) {
      access.tls.client_cert_pem = decode_base64(data, user_where + ": client-certificate-data");
      access.tls.client_cert_file.clear();
    }
    if (std::string data = text_field(u, "client-key-data", user_where); !data.empty()) {
      access.tls.client_key_pem = decode_base64(data, user_where + ": client-key-data");
      access.tls.client_key_file.clear();
    }
    std::string token = text_field(u, "token", user_where);
    std::string token_file = resolve_path(text_field(u, "tokenFile", user_where), u.file);
    if (!token.empty()) {
      access.credentials = Credentials::from_token(token);
    } else if (!token_file.empty()) {
      access.credentials = Credentials::from_token_file(token_file);
    } else if (u.value["exec"]) {
      access.credentials = Credentials::from_exec(read_exec(u, user_where));
    }
    for (const char* unsupported : {"auth-provider", "username"}) {
      if (u.value[unsupported]) {
        throw ConfigError(user_where + ": " + unsupported +
                          " is not supported (use a token, a client certificate or an exec "
                          "plugin)");
      }
    }
  }
  return access;
}

ClusterAccess in_cluster(const Environment& env) {
  if (env.service_host.empty() || env.service_port.empty()) {
    throw ConfigError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT are not set");
  }
  const std::string token = env.service_account_dir + "/token";
  const std::string ca = env.service_account_dir + "/ca.crt";
  for (const std::string& file : {token, ca}) {
    if (!fs::exists(file)) {
      throw ConfigError("in-cluster service account: " + file +
                        " is missing (is automountServiceAccountToken off?)");
    }
  }
  ClusterAccess access;
  std::string host = env.service_host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";  // IPv6
  access.server = "https://" + host + ":" + env.service_port;
  access.tls.ca_file = ca;
  access.credentials = Credentials::from_token_file(token);
  access.origin = "in-cluster service account";
  return access;
}

ClusterAccess find_cluster(const AccessOptions& options, const Environment& env) {
  if (!options.kubeconfig.empty()) {
    if (!fs::exists(options.kubeconfig)) {
      throw ConfigError("--kubeconfig " + options.kubeconfig + ": no such file");
    }
    return from_kubeconfig({options.kubeconfig}, options.context);
  }
  if (!env.kubeconfig.empty()) {
    // kubectl skips the files of $KUBECONFIG that do not exist.
    std::vector<std::string> files;
    for (const std::string& file : split_list(env.kubeconfig)) {
      if (fs::exists(file)) files.push_back(file);
    }
    if (files.empty()) {
      throw ConfigError("$KUBECONFIG=" + env.kubeconfig + ": none of its files exists");
    }
    return from_kubeconfig(files, options.context);
  }
  if (!env.home.empty()) {
    std::string file = env.home + "/.kube/config";
    if (fs::exists(file)) return from_kubeconfig({file}, options.context);
  }
  if (!env.service_host.empty()) return in_cluster(env);
  throw ConfigError(
      "no cluster configured: give --kubeconfig FILE, set $KUBECONFIG, create "
      "~/.kube/config, or run in a pod (KUBERNETES_SERVICE_HOST)");
}

}  // namespace loadshift::kube
