#include "test/kube/fake_api_tls.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <stdexcept>

namespace loadshift::testing {
namespace {

[[noreturn]] void fail(const std::string& what) {
  char buf[256] = "";
  ERR_error_string_n(ERR_get_error(), buf, sizeof buf);
  throw std::runtime_error("fake API server TLS: " + what + ": " + buf);
}

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(size));
  BIO_free(bio);
  return out;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr || X509_add_ext(cert, ext, -1) != 1) fail(std::string("extension ") + value);
  X509_EXTENSION_free(ext);
}

enum class Role { kCa, kServer, kClient };

CertifiedKey make(Role role, const std::string& cn, const std::string& org,
                  const CertifiedKey* issuer, long serial) {
  CertifiedKey out;
  out.key.reset(EVP_EC_gen("P-256"));
  if (!out.key) fail("EC key");
  out.cert.reset(X509_new());
  X509* cert = out.cert.get();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  X509_set_pubkey(cert, out.key.get());
  X509_NAME* name = X509_get_subject_name(cert);
  if (!org.empty()) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509* issuer_cert = issuer ? issuer->cert.get() : cert;
  X509_set_issuer_name(cert, X509_get_subject_name(issuer_cert));
  switch (role) {
    case Role::kCa:
      add_extension(cert, issuer_cert, NID_basic_constraints, "critical,CA:TRUE");
      add_extension(cert, issuer_cert, NID_key_usage,
                    "critical,keyCertSign,cRLSign,digitalSignature");
      add_extension(cert, issuer_cert, NID_subject_key_identifier, "hash");
      break;
    case Role::kServer:
      add_extension(cert, issuer_cert, NID_basic_constraints, "critical,CA:FALSE");
      add_extension(cert, issuer_cert, NID_key_usage, "critical,digitalSignature,keyEncipherment");
      add_extension(cert, issuer_cert, NID_ext_key_usage, "serverAuth");
      add_extension(cert, issuer_cert, NID_subject_alt_name, "IP:127.0.0.1,DNS:localhost");
      add_extension(cert, issuer_cert, NID_authority_key_identifier, "keyid:always");
      break;
    case Role::kClient:
      add_extension(cert, issuer_cert, NID_basic_constraints, "critical,CA:FALSE");
      add_extension(cert, issuer_cert, NID_key_usage, "critical,digitalSignature");
      add_extension(cert, issuer_cert, NID_ext_key_usage, "clientAuth");
      add_extension(cert, issuer_cert, NID_authority_key_identifier, "keyid:always");
      break;
  }
  EVP_PKEY* signer = issuer ? issuer->key.get() : out.key.get();
  if (X509_sign(cert, signer, EVP_sha256()) == 0) fail("sign " + cn);
  return out;
}

}  // namespace

std::string CertifiedKey::key_pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  if (PEM_write_bio_PrivateKey(bio, key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    BIO_free(bio);
    fail("write key");
  }
  return bio_text(bio);
}

std::string CertifiedKey::cert_pem() const {
  BIO* bio = BIO_new(BIO_s_mem());
  if (PEM_write_bio_X509(bio, cert.get()) != 1) {
    BIO_free(bio);
    fail("write certificate");
  }
  return bio_text(bio);
}

TestPki make_test_pki(const std::string& client_cn, const std::string& client_org) {
  TestPki pki;
  pki.ca = make(Role::kCa, "loadshift-fake-apiserver-ca", "", nullptr, 1);
  pki.server = make(Role::kServer, "kube-apiserver", "", &pki.ca, 2);
  pki.client = make(Role::kClient, client_cn, client_org, &pki.ca, 3);
  return pki;
}

}  // namespace loadshift::testing
