#include "session/dump_import_cache.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

#include <dlfcn.h>

#include "opscope/import/msprobe.h"

namespace opscope::gui {
namespace {

QString recordPath(const QString& caseFile) { return caseFile + ".import.json"; }

void addFile(QCryptographicHash& hash, const QFileInfo& f) {
    const QByteArray line = (f.fileName() + '\t' + QString::number(f.size()) + '\t' +
                             QString::number(f.lastModified().toMSecsSinceEpoch()) + '\n')
                                .toUtf8();
    hash.addData(line);
}

}  // namespace

QString importerBinaryPath() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<const void*>(&import::msprobe::importDump), &info) && info.dli_fname)
        return QFileInfo(QString::fromLocal8Bit(info.dli_fname)).absoluteFilePath();
    return QCoreApplication::applicationFilePath();
}

QString dumpFingerprint(const std::vector<import::msprobe::DumpFolder>& folders,
                        const import::msprobe::DeviceSettings& device) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    addFile(hash, QFileInfo(QCoreApplication::applicationFilePath()));  // another build imports again
    addFile(hash, QFileInfo(importerBinaryPath()));
    hash.addData(device.convAllowHf32 ? QByteArrayLiteral("conv_allow_hf32\n") : QByteArrayLiteral("conv_fp32\n"));
    hash.addData(QByteArray("product ") + productId(device.product) + '\n');
    for (const import::msprobe::DumpFolder& folder : folders) {
        const QDir d(QString::fromStdString(folder.path));
        hash.addData((d.absolutePath() + '\n').toUtf8());
        for (const char* name : {"dump.json", "stack.json", "construct.json"}) addFile(hash, QFileInfo(d, name));
        const QDir tensors(d.filePath("dump_tensor_data"));
        for (const QFileInfo& f : tensors.entryInfoList(QDir::Files | QDir::Hidden, QDir::Name)) addFile(hash, f);
    }
    return QString::fromLatin1(hash.result().toHex());
}

std::optional<DumpImport> reusableImport(const QString& caseFile, const QString& fingerprint) {
    QFile file(recordPath(caseFile));
    if (!file.open(QIODevice::ReadOnly) || file.size() > (1 << 24)) return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(file.readAll()).object();
    const QFileInfo written(caseFile);
    if (o.value("fingerprint").toString() != fingerprint || !written.isFile() ||
        o.value("size").toString() != QString::number(written.size()) ||
        o.value("modified").toString() != QString::number(written.lastModified().toMSecsSinceEpoch()))
        return std::nullopt;
    DumpImport r;
    r.caseFile = caseFile;
    r.summary = o.value("summary").toString();
    for (const QJsonValue& v : o.value("notDone").toArray()) r.notDone << v.toString();
    r.reused = true;
    return r;
}

void rememberImport(const DumpImport& r, const QString& fingerprint) {
    const QFileInfo written(r.caseFile);
    QJsonObject o;
    o["fingerprint"] = fingerprint;
    o["size"] = QString::number(written.size());
    o["modified"] = QString::number(written.lastModified().toMSecsSinceEpoch());
    o["summary"] = r.summary;
    o["notDone"] = QJsonArray::fromStringList(r.notDone);
    QSaveFile file(recordPath(r.caseFile));  // atomic: a record is whole or absent
    if (file.open(QIODevice::WriteOnly)) {
        file.write(QJsonDocument(o).toJson());
        file.commit();
    }
}

void forgetImport(const QString& caseFile) { QFile::remove(recordPath(caseFile)); }

}  // namespace opscope::gui
