// Reopening an msprobe dump folder reuses the case file imported last time when nothing it was
// made from has changed: a multi-GB dump then opens at once instead of being imported again. The
// record of an import (<case file>.import.json: the fingerprint, the case file's size and time,
// the summary and the calls not imported) is written after the case file and removed before a
// new import, so a record always describes the case file beside it. The fingerprint covers every
// file the importer reads (dump.json, stack.json, construct.json and each tensor file: name, size,
// modification time), the OpScope program and the library the importer was loaded from, so a
// changed dump or another build of the importer (even a library updated alone) imports again:
// the debugger never shows verdicts of a dump that is no longer there, or of an older importer.
#pragma once

#include <QString>
#include <optional>

#include "session/dump_import.h"

namespace opscope::gui {

// The dump's files (of `folders`, import::msprobe::findDumpFolders, which throws when a folder
// holds no dump) and the settings it is imported with.
QString dumpFingerprint(const std::vector<import::msprobe::DumpFolder>& folders,
                        const import::msprobe::DeviceSettings& device);
// The file the importer's code was loaded from: libopscope_core.so (or the program, linked in).
QString importerBinaryPath();

// The last import of this fingerprint into `caseFile`, if the case file is still the one it wrote.
std::optional<DumpImport> reusableImport(const QString& caseFile, const QString& fingerprint);
// After a successful import (r.caseFile written); before one, forgetImport.
void rememberImport(const DumpImport& r, const QString& fingerprint);
void forgetImport(const QString& caseFile);

}  // namespace opscope::gui
