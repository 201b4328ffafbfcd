// Certificates for the fake API server, made in-process with OpenSSL: a CA, a server certificate
// for 127.0.0.1 and localhost (subjectAltNames), and a client certificate, all EC P-256, valid
// from an hour ago for a day.
#pragma once

#include <memory>
#include <string>

#include <openssl/evp.h>
#include <openssl/x509.h>

namespace loadshift::testing {

struct X509Deleter {
  void operator()(X509* p) const { X509_free(p); }
};
struct KeyDeleter {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;

struct CertifiedKey {
  KeyPtr key;
  X509Ptr cert;
  std::string key_pem() const;
  std::string cert_pem() const;
};

struct TestPki {
  CertifiedKey ca, server, client;
};

// Throws std::runtime_error with OpenSSL's error when anything fails.
// client_cn/client_org: the client certificate's subject (the user and group it authenticates as).
TestPki make_test_pki(const std::string& client_cn, const std::string& client_org);

}  // namespace loadshift::testing
