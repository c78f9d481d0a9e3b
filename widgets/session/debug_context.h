// The debugger's one context (RenderDoc's ICaptureContext): it owns the open file, the case,
// the operator and its arguments, the prepared executor (through the execution worker), the
// step states, the baseline and the analysis. Every window observes it through its signals
// and asks it for tensors; no window reaches into another.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "opscope/case_file.h"
#include "opscope/h5/h5_file.h"
#include "opscope/import/tensor_entry.h"
#include "opscope/metrics.h"
#include "opscope/ops/operator.h"
#include "opscope/product.h"
#include "session/argument_binding.h"
#include "session/execution_worker.h"
#include "session/session_io.h"
#include "session/session_types.h"

class QFileSystemWatcher;

namespace opscope::gui {

// A case (or recorded executor) found in the open file.
struct CaseEntry {
    std::string path;
    std::string op;
    std::string description;
    bool fromTrace = false;
};

class DebugContext : public QObject, private WorkerSink {
    Q_OBJECT
public:
    // The golden: the operator's float64 result for the inputs as run (as opscope-cli calls it),
    // and, with "run as", of the inputs as stored: the whole cost of the lower precision.
    static constexpr const char* kComputedBaseline = "golden";
    static constexpr const char* kStoredInputsBaseline = "golden (stored inputs)";

    explicit DebugContext(QObject* parent = nullptr);
    ~DebugContext() override;

    // ---- file -------------------------------------------------------------------------
    // Opens read-only and lists cases from metadata; false with a sentence in *error. A tensor
    // file (.pt/.pth/.bin, .safetensors and its shard index, .npz, .npy) opens too: its tensors
    // are listed from its directory (no data read) and it has no cases.
    bool openFile(const QString& path, QString* error = nullptr);
    // What the open file points at outside itself ("/a/dy: external storage -> /etc/passwd"),
    // which is not read unless allowExternalData() was called for it.
    const QStringList& outsideReferences() const { return outside_; }
    // The user trusts the open file: it may read the files it points at (h5/file_safety.h).
    void allowExternalData();
    void closeFile();
    // The open file changed on disk since it was opened (rewritten, replaced or removed), or a
    // file it was made from (watchSources): the cases, tree and verdicts shown are of the file as
    // it was. Opening it again clears this.
    bool changedOnDisk() const { return changedOnDisk_; }
    // Files the open file was made from (an msprobe dump's dump.json per rank, for its import):
    // watched with it until another file is opened.
    void watchSources(const QStringList& files);
    QString filePath() const { return filePath_; }
    const h5::File* file() const { return file_.get(); }
    bool isTraceFile() const { return isTrace_; }
    // The open file is a tensor file: its tensors (key, dtype, shape) are the tree's datasets,
    // each key a dataset path (bound, viewed and compared as "FILE:KEY").
    bool isTensorFile() const { return !filePath_.isEmpty() && !file_; }
    const std::vector<import::TensorEntry>& tensorEntries() const { return tensors_; }
    // The key of a tree path of the open tensor file: the path itself, or "" for the file's one
    // unnamed tensor (a .npy, a .pt of a bare tensor), which the tree lists under the file's name.
    QString tensorKey(const QString& treePath) const;
    // What readTensorFile reads for a tree path of the open tensor file: FILE:KEY, or FILE.
    QString tensorSpec(const QString& treePath) const;
    const std::vector<CaseEntry>& cases() const { return cases_; }

    // Reads the case in the background, binds it and prepares it. Only the latest request
    // lands: a read that finishes after a newer one began is dropped. An executor of a trace
    // that cannot be replayed (recorded at level stats or metadata) is still shown: its steps,
    // timings and statistics (showRecordedRun).
    void loadCase(const QString& casePath);
    // The recorded executor's steps as the plan, every step done, nothing to run or fetch
    // (debug_context_recorded.cpp).
    void showRecordedRun(const QString& executorPath);
    bool isRecordedOnly() const { return recordedOnly_; }
    // Another case is about to load (the case list's selection moved): the shown one's form,
    // steps and verdict go now, so none of them stays beside a case it does not belong to.
    void leaveCase();
    const cases::Case* currentCase() const { return case_.get(); }
    // The arguments that differ from the case as loaded: the case's stored outputs (a device's
    // gradients, an expected result) are of the call as loaded. Another product is not among
    // them: the device verdict names the arithmetic the device ran (ops::deviceArithmetic), as
    // opscope-cli run --product does.
    std::vector<std::string> changedFromCase() const;

    // ---- operator and arguments --------------------------------------------------------
    bool setOperator(const QString& name);  // clears the arguments to the schema defaults
    const ops::Operator* op() const { return op_; }
    const ArgumentState& arguments() const { return args_; }
    // Reads a dataset of the open file in the background and binds it to a tensor argument.
    void bindDataset(const std::string& argument, const QString& datasetPath);
    // A tensor from "x.npy", "d.npz:key" or "w.pt" (bindingFromFileOnWorker), read off the GUI thread.
    void bindFile(const std::string& argument, const QString& spec);
    // Binding prefills the attributes that follow from the bound shapes (ops/attribute_defaults.h),
    // except those the user set with setAttribute/clearAttribute since the case or operator.
    void bindTensor(const std::string& argument, HostTensor tensor, const std::string& origin);
    // The file tree's current dataset ("" when none), which a double-click on a slot binds.
    void setSelectedDataset(const QString& path) { selectedDataset_ = path; }
    QString selectedDataset() const { return selectedDataset_; }
    // What the bound shapes contradict among the kept attributes ("group (3) does not divide C (4)").
    std::vector<std::string> shapeNotes() const;
    void unbindTensor(const std::string& argument);
    void setAttribute(const std::string& name, const ParamValue& value);
    void clearAttribute(const std::string& name);  // back to "absent" (the schema default)
    void setRunAs(DType dtype);                    // Undefined = as stored
    DType runAs() const { return runAs_; }
    // The user's product (the Call form). A case that records its device's product (an imported
    // dump, a trace) is emulated on that one while it is loaded; the others on the user's.
    void setProduct(Product p);
    Product product() const { return product_; }

    // What outputs are compared with: a computed reference or a source of the case ("expected").
    // Choosing "run as" switches the computed reference to the stored inputs' (and back).
    QStringList baselineChoices() const;
    void setBaselineSource(const QString& source);
    QString baselineSource() const { return baselineSource_; }
    // The standard judging steps and the overall verdict (a metrics::parseStandard spec).
    void setStandard(const QString& spec);
    QString standardSpec() const { return standardSpec_; }

    // ---- execution ---------------------------------------------------------------------
    void prepare();
    void step();                        // F10
    void continueRun();                 // F5: to the next breakpoint or the end
    void runTo(std::size_t stepIndex);  // stop before stepIndex (replays from 0 if passed)
    void restart();
    void cancel();

    bool isPrepared() const { return prepared_; }
    // Busy: the execution thread has work (prepare, a run, a replay); Step and friends wait.
    // The reference and the analysis run in the background and never block stepping.
    bool isBusy() const { return busy_ > 0; }
    bool isIdle() const { return busy_ == 0 && background_ == 0; }
    QString busyText() const { return busyText_; }
    QString backgroundText() const { return backgroundText_; }
    const PlanInfo& plan() const { return plan_; }
    const std::vector<StepState>& stepStates() const { return steps_; }
    std::size_t nextStep() const { return next_; }
    bool atEnd() const { return prepared_ && next_ >= plan_.steps.size() && runFinished_; }
    // The last error of prepare (code 0 for binding problems), for the form.
    // code: the aclnn status, or 0 when the call never reached the operator (a tensor not bound,
    // an attribute of the wrong kind): then there is no code to show.
    struct PrepareError {
        int32_t code = 0;
        QString message;
        std::string argument;
        // "Prepare failed (161002)", or "Prepare failed" without a status.
        QString headline() const { return code ? QString("Prepare failed (%1)").arg(code) : QString("Prepare failed"); }
    };
    const std::optional<PrepareError>& prepareError() const { return prepareError_; }

    void toggleBreakpoint(std::size_t step);
    bool hasBreakpoint(std::size_t step) const { return breakpoints_.count(step) > 0; }
    void setBreakOnNonFinite(bool on) { breakOnNonFinite_ = on; }
    bool breakOnNonFinite() const { return breakOnNonFinite_; }
    void setBreakOnError(bool on) { breakOnError_ = on; }
    bool breakOnError() const { return breakOnError_; }

    // ---- inspection --------------------------------------------------------------------
    // Delivers the tensor to `done` on receiver's thread (not at all if receiver dies first).
    // Slot tensors are copied between steps on the worker; errors are computed off the GUI thread.
    void fetchTensor(const TensorKey& key, QObject* receiver, std::function<void(TensorPtr, QString)> done);
    TensorMapPtr baseline() const { return baseline_; }
    AnalysisPtr analysis() const { return analysis_; }
    // Outputs at the end of the last full run (for saving and reports); null before.
    std::shared_ptr<const TensorMap> finalOutputs() const { return finalOutputs_; }
    const metrics::Standard& standard() const { return standard_; }

    // Asks every view to show a tensor or a step (a window never reaches into another).
    void selectTensor(const TensorKey& key) { Q_EMIT tensorSelected(key); }
    void selectStep(std::size_t step) { Q_EMIT stepSelected(step); }

    void pickElement(const ElementPick& pick);
    const ElementPick& pick() const { return pick_; }
    const std::vector<HistoryEntry>& history() const { return history_; }

    // Runs fn(call) on the worker with the prepared call; done() afterwards on the GUI thread.
    void withExecutor(std::function<void(ops::PreparedCall&)> fn, std::function<void(QString error)> done);

    // What a session file and a report hold of the current call.
    SessionSnapshot snapshot() const;
    // Saves the session (a full trace of the call, outputs, golden, metrics) to `dest`
    // atomically: the worker replays the prepared call into a temporary file, which replaces
    // `dest` only when complete. The input file is refused as `dest` unless `replaceInput`
    // (the caller asked the user); it is then closed and reopened. done("") or done(error).
    void saveSession(const QString& dest, bool replaceInput, std::function<void(QString error)> done);

Q_SIGNALS:
    void fileChanged();
    void fileChangedOnDisk();  // see changedOnDisk()
    void caseLoaded(const QString& path);
    void caseLoadFailed(const QString& path, const QString& error);
    void operatorChanged();
    void argumentsChanged();
    void prepareFailed(const QString& argument, int code, const QString& message);
    void planChanged();
    void stepStateChanged(std::size_t step);
    void positionChanged(std::size_t nextStep);
    void busyChanged(bool busy);
    void backgroundChanged(bool working);  // reference / analysis in progress
    void runStopped(opscope::gui::StopKind kind, const QString& message);
    void baselineChanged();
    void analysisChanged();
    void historyChanged();
    void tensorSelected(const opscope::gui::TensorKey& key);
    void stepSelected(std::size_t step);
    void statusMessage(const QString& text, bool isError);

private:
    // WorkerSink (GUI thread).
    void preparedFromWorker(uint64_t generation, PrepareOutcome outcome) override;
    void stepDoneFromWorker(uint64_t generation, std::size_t step, StepState state,
                            std::vector<HistoryEntry> history) override;
    void runStoppedFromWorker(uint64_t generation, StopKind kind, QString message, std::size_t nextStep) override;
    void stepsRejudgedFromWorker(uint64_t generation, std::vector<std::pair<std::size_t, StepState>> states) override;
    void historyFromWorker(uint64_t generation, ElementPick pick, std::vector<HistoryEntry> history) override;

    void beginBusy(const QString& what);
    void endBusy();
    void beginBackground(const QString& what);
    void endBackground();
    void run(RunOptions options, const QString& what);
    void clearPlan();
    void invalidatePlan();  // arguments changed: the prepared plan no longer matches the form
    // Drops the loaded case, bound tensors, plan, results and "run as" (a new file, a case that
    // failed to load): nothing of an old call stays on screen as if it were current.
    void forgetCall();
    void prefillFromShapes();
    void computeBaseline();
    void applyBaseline(TensorMapPtr baseline);
    void computeAnalysis();
    void listCases();
    bool openTensorFile(const QString& path, QString* error);

    std::unique_ptr<ExecutionWorker> worker_;
    QString filePath_;
    // Watches filePath_ for changes on disk (debug_context_watch.cpp).
    void watchOpenFile();
    void onWatchedFileChanged();
    QFileSystemWatcher* watcher_ = nullptr;
    std::string openedStamp_;                      // the open file's identity, size and modification time
    std::map<QString, std::string> sourceStamps_;  // watchSources: each file's stamp when it was given
    bool changedOnDisk_ = false;
    QStringList outside_;
    std::unique_ptr<h5::File> file_;
    bool isTrace_ = false;
    std::vector<import::TensorEntry> tensors_;  // of an open tensor file
    std::vector<CaseEntry> cases_;
    std::shared_ptr<const cases::Case> case_;
    uint64_t caseRequest_ = 0;
    QString selectedDataset_;

    const ops::Operator* op_ = nullptr;
    ArgumentState args_;
    ArgumentState loadedArgs_;                // args_ as the case filled them (changedFromCase)
    std::set<std::string> editedAttributes_;  // set by the user: binding never overwrites them
    DType runAs_ = DType::Undefined;
    Product product_ = Product::AtlasA2;        // emulated now
    Product chosenProduct_ = Product::AtlasA2;  // the user's (setProduct), for cases that record none
    QString baselineSource_ = kComputedBaseline;
    QString standardSpec_;  // "" = the operator's / case's default
    metrics::Standard standard_;

    uint64_t generation_ = 0;
    bool prepared_ = false;
    bool recordedOnly_ = false;  // the plan is a recorded run's, shown without an executor
    bool runFinished_ = false;
    int busy_ = 0;
    int background_ = 0;
    QString busyText_, backgroundText_;
    PlanInfo plan_;
    ops::OpArguments usedArgs_, storedArgs_;
    std::vector<StepState> steps_;
    std::size_t next_ = 0;
    std::optional<PrepareError> prepareError_;
    std::set<std::size_t> breakpoints_;
    bool breakOnNonFinite_ = false;
    bool breakOnError_ = false;

    TensorMapPtr baseline_;
    AnalysisPtr analysis_;
    std::shared_ptr<const TensorMap> finalOutputs_;
    uint64_t analysisRequest_ = 0;
    ElementPick pick_;
    std::vector<HistoryEntry> history_;
};

}  // namespace opscope::gui
