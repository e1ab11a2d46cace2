#include "core/node/crl_directory.h"

// CrlDirectory's implementation: the CRLs parsed and checked against the CAs (issuer, signature,
// next update), then written under their issuers' hashes in a private directory.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace shardmap::core {

namespace {

struct BioFree {
    void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
    void operator()(X509* cert) const { X509_free(cert); }
};
struct CrlFree {
    void operator()(X509_CRL* crl) const { X509_CRL_free(crl); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
using CertPtr = std::unique_ptr<X509, X509Free>;
using CrlPtr = std::unique_ptr<X509_CRL, CrlFree>;

BioPtr memoryBio(const std::string& data)
{
    return BioPtr(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string nameText(const X509_NAME* name)
{
    char* text = X509_NAME_oneline(name, nullptr, 0);
    std::string result = text ? text : "";
    OPENSSL_free(text);
    return result;
}

std::string timeText(const ASN1_TIME* time)
{
    BioPtr bio(BIO_new(BIO_s_mem()));
    ASN1_TIME_print(bio.get(), time);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

// Every CRL of a PEM file (one or several), or the one of a DER file.
std::vector<CrlPtr> parseCrls(const std::string& data)
{
    std::vector<CrlPtr> crls;
    auto pem = memoryBio(data);
    while (X509_CRL* crl = PEM_read_bio_X509_CRL(pem.get(), nullptr, nullptr, nullptr))
        crls.emplace_back(crl);
    if (crls.empty()) {
        auto der = memoryBio(data);
        if (X509_CRL* crl = d2i_X509_CRL_bio(der.get(), nullptr))
            crls.emplace_back(crl);
    }
    return crls;
}

std::vector<CertPtr> parseCertificates(const std::string& pemData)
{
    std::vector<CertPtr> certs;
    auto pem = memoryBio(pemData);
    while (X509* cert = PEM_read_bio_X509(pem.get(), nullptr, nullptr, nullptr))
        certs.emplace_back(cert);
    return certs;
}

// The CA of cas that issued and signed crl; a sentence saying what is wrong otherwise.
Status checkIssuer(X509_CRL* crl, const std::vector<CertPtr>& cas, const std::string& crlFile)
{
    const X509_NAME* issuer = X509_CRL_get_issuer(crl);
    for (const auto& ca : cas) {
        if (X509_NAME_cmp(X509_get_subject_name(ca.get()), issuer) != 0)
            continue;
        if (X509_CRL_verify(crl, X509_get0_pubkey(ca.get())) == 1)
            return {};
        return makeError(ErrorCode::InvalidArgument,
            "the revocation list of " + nameText(issuer) + " is not signed by that CA's key (--tls-ca)", crlFile);
    }
    return makeError(ErrorCode::InvalidArgument,
        "the revocation list is issued by " + nameText(issuer)
            + ", which is not a CA of --tls-ca; give the CRL of the CA that signs the clients' certificates",
        crlFile);
}

Status checkCurrent(X509_CRL* crl, const std::string& crlFile)
{
    const ASN1_TIME* next = X509_CRL_get0_nextUpdate(crl);
    if (next && X509_cmp_current_time(next) < 0)
        return makeError(ErrorCode::InvalidArgument,
            "the revocation list of " + nameText(X509_CRL_get_issuer(crl)) + " expired at " + timeText(next)
                + "; every client would be refused until a new one is published (openssl ca -gencrl)",
            crlFile);
    return {};
}

// Directories of processes that were killed (SIGKILL, a crash) before they could remove their
// own: shardmap-crl-<pid>-XXXXXX where no process <pid> runs any more.
void removeAbandonedDirectories(const std::filesystem::path& parent)
{
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
        const std::string name = entry.path().filename().string();
        const std::string prefix = "shardmap-crl-";
        if (!name.starts_with(prefix))
            continue;
        const auto dash = name.find('-', prefix.size());
        const std::string pid = name.substr(prefix.size(), dash - prefix.size());
        if (dash == std::string::npos || pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos)
            continue;
        if (!std::filesystem::exists("/proc/" + pid, error))
            std::filesystem::remove_all(entry.path(), error);
    }
}

Result<std::string> makePrivateDirectory()
{
    const auto parent = std::filesystem::temp_directory_path();
    removeAbandonedDirectories(parent);
    std::string pattern = (parent / ("shardmap-crl-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        return makeError(ErrorCode::Internal, "cannot create a directory for the revocation lists", pattern);
    return pattern;
}

Status writeFile(const std::string& path, const std::string& data)
{
    std::ofstream out(path, std::ios::binary);
    out << data;
    out.close();
    if (!out)
        return makeError(ErrorCode::Internal, "cannot write the revocation list", path);
    return {};
}

std::string crlPem(X509_CRL* crl)
{
    BioPtr bio(BIO_new(BIO_s_mem()));
    PEM_write_bio_X509_CRL(bio.get(), crl);
    char* data = nullptr;
    const long size = BIO_get_mem_data(bio.get(), &data);
    return std::string(data, static_cast<std::size_t>(size));
}

} // namespace

Result<std::shared_ptr<CrlDirectory>> CrlDirectory::fromFile(const std::string& crlFile, const std::string& caPem)
{
    std::ifstream in(crlFile, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::NotFound, "cannot read the certificate revocation list (--tls-crl)", crlFile);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const auto crls = parseCrls(buffer.str());
    if (crls.empty())
        return makeError(ErrorCode::InvalidArgument,
            "not a certificate revocation list (PEM \"X509 CRL\" blocks or DER expected)", crlFile);
    const auto cas = parseCertificates(caPem);
    for (const auto& crl : crls) {
        if (auto status = checkIssuer(crl.get(), cas, crlFile); !status)
            return status.error();
        if (auto status = checkCurrent(crl.get(), crlFile); !status)
            return status.error();
    }
    auto path = makePrivateDirectory();
    if (!path)
        return path.error();
    std::shared_ptr<CrlDirectory> directory(new CrlDirectory(*path));
    // OpenSSL looks a CRL up by its issuer's name hash, <hash>.r0, .r1 ... for several of one CA.
    std::map<unsigned long, int> perIssuer;
    for (const auto& crl : crls) {
        const unsigned long hash = X509_NAME_hash_ex(X509_CRL_get_issuer(crl.get()), nullptr, nullptr, nullptr);
        char name[32];
        std::snprintf(name, sizeof name, "%08lx.r%d", hash, perIssuer[hash]++);
        if (auto status = writeFile(*path + "/" + name, crlPem(crl.get())); !status)
            return status.error();
    }
    return directory;
}

CrlDirectory::~CrlDirectory()
{
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
}

} // namespace shardmap::core
