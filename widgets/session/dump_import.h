// Opening an msprobe dump folder in the debugger: the CLI's importer (import/msprobe.h) writes
// its supported calls as a case file in the user's cache folder (atomically; one file per dump
// folder, replaced when the folder is opened again), which the debugger then opens like any
// case file. Runs on a pool thread (importDumpFolderOnWorker); no widgets.
#pragma once

#include <QString>
#include <QStringList>
#include <cstddef>
#include <functional>

#include "opscope/import/msprobe.h"

namespace opscope::gui {

struct DumpImport {
    QString caseFile;        // the case file written, to open
    QString summary;         // "Imported 7 of 10 supported calls from step0/rank0 into ..."
    QStringList notDone;     // "step0/rank0/Functional.conv2d.5: <reason>", one per call not imported
    bool cancelled = false;  // DumpImportControl::cancelled stopped it: no file written
    bool reused = false;     // nothing changed since the last import: its case file is opened
    QStringList sources;     // each rank folder's dump.json: what a new dump at `dir` writes again
};

// How the GUI follows an import: both called on the importing (pool) thread. The device's
// settings that the dump does not record come with it (File > "Dumps ran with conv HF32").
struct DumpImportControl {
    std::function<bool()> cancelled;
    std::function<void(std::size_t done, std::size_t total)> progress;
    import::msprobe::DeviceSettings device;
};

// Where the case file of the dump folder `dir` goes: <cache>/msprobe/<folder name>-<hash of its
// absolute path>.h5, the cache being QStandardPaths::CacheLocation (else the temporary folder).
QString dumpCaseFilePath(const QString& dir);

// Throws std::runtime_error (the importer's sentence) when `dir` holds no dump or no call of it
// could be imported.
// The tensor files are read and compressed by as many threads as the machine has cores. When
// nothing has changed since the last import of `dir` with the same device settings, its case
// file is reused (session/dump_import_cache.h).
DumpImport importDumpFolderOnWorker(const QString& dir, const DumpImportControl& control = {});

}  // namespace opscope::gui
