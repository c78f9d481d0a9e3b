// Any dataset of any file, without an operator (the first thing a user does with a
// checkpoint): its heatmap (any 2-D slice), histogram, statistics and first NaN/Inf. And any
// two compared, A against the reference B (two datasets, the same path in two files, a call's
// output and a dataset), judged by the CLI's evaluation (analyzeOutputs -> ops::compareOutputs,
// as `opscope-cli compare`): A | B | relative error side by side or A/B, the metrics table and
// the error charts. A big dataset of rank >= 3 is read one slice at a time (readDatasetForView);
// a big rank-2 dataset (or a big slice) is streamed from the file in row bands into one summary
// pass and not held at all. A comparison holds both sides and their error the same way
// (readPairForView), and its metrics and charts come from one pass over every element a band of
// each side at a time (analyzePair): two 10 GiB datasets compare in bounded memory.
#pragma once

#include <QWidget>
#include <array>
#include <atomic>
#include <memory>
#include <optional>

#include "session/analysis.h"
#include "session/dataset_read.h"
#include "session/session_types.h"
#include "views/heatmap_menu.h"
#include "views/tensor_display.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTabWidget;
class QTableView;
class QToolButton;
class QVBoxLayout;

namespace opscope::gui {

class ChartsPanel;
class DisplayControls;
class HeatmapWidget;
class MetricsTableModel;
class RangeHistogramWidget;
class SliceControls;

// A dataset of an HDF5 file, or a tensor of a tensor file (.pt, .safetensors, ...: `path` is
// its key).
struct DatasetRef {
    QString file;
    QString path;
    // "ckpt.h5:/model/embed"; a tensor file's key "model.safetensors:embed.weight"; the file's name
    // alone when there is no path (a tensor file, or a folder, as a whole).
    QString label() const;
};

class DatasetViewPanel : public QWidget {
    Q_OBJECT
public:
    enum Map { MapA, MapB, MapError };

    // Above this many bytes a dataset of rank >= 3 viewed alone is read one 2-D slice at a time.
    static constexpr uint64_t kSliceOnlyAboveBytes = uint64_t(64) << 20;

    explicit DatasetViewPanel(QWidget* parent = nullptr);
    ~DatasetViewPanel() override;                                        // stops a read or a comparison still running
    void setSliceOnlyAbove(uint64_t bytes) { sliceOnlyAbove_ = bytes; }  // tests use small files
    void setStreamBandBytes(uint64_t bytes) { bandBytes_ = bytes; }      // and small bands
    void setCompareBandBytes(uint64_t bytes) { compareBandBytes_ = bytes; }  // of the comparison's pass too

    // Reads the dataset in the background and shows it as A; a comparison ends.
    void view(const DatasetRef& ref);
    // Shows a tensor the caller holds (a call's output) as A.
    void showTensor(const QString& label, TensorPtr tensor, const QString& sourceFile = {});
    // Reads B and compares A with it (B is the reference, as in `opscope-cli compare A B`).
    void compareWith(const DatasetRef& ref);
    // view(a), then compareWith(b) once A is read (a row of the group compare).
    void viewAndCompare(const DatasetRef& a, const DatasetRef& b);
    // A metrics::parseStandard spec ("cann", "rtol=1e-3,atol=1e-5"); the CLI's default: cann.
    void setStandard(const QString& spec);
    void setSideBySide(bool on);
    void setShowReference(bool on);  // A/B: B in the main map

    bool hasTensor() const { return a_.tensor != nullptr || a_.streamed != nullptr; }
    // What the view holds of A: the whole tensor, or only the block of the slice on screen.
    TensorPtr heldTensor() const { return a_.tensor; }
    bool holdsSliceOnly() const { return !a_.blockStart.empty(); }
    // A's slice was streamed in row bands: only its summary (cells, sample, statistics) is held.
    bool isStreamed() const { return a_.streamed != nullptr; }
    std::shared_ptr<const view::SliceSummary> streamedSummary() const { return a_.streamed; }
    bool isComparing() const { return b_.ref.has_value(); }
    // What the view holds of B: its whole tensor, the block of the slice, or nothing (streamed).
    TensorPtr heldReference() const { return b_.tensor; }
    bool isReferenceStreamed() const { return b_.streamed != nullptr; }
    bool isLoading() const;
    std::optional<DatasetRef> viewedDataset() const { return a_.ref; }
    AnalysisPtr analysis() const { return analysis_; }
    QString title() const;
    QString statsText() const;
    QString message() const;      // the last error, "" if none
    QString verdictLine() const;  // the comparison's verdict, or its progress
    const DisplayFrame& frame(Map map) const { return frames_[map]; }
    HeatmapWidget* heatmap(Map map) const { return maps_[map]; }
    HeatmapContent content(Map map) const;
    MetricsTableModel* metricsModel() const { return metrics_; }
    ChartsPanel* charts() const { return charts_; }

Q_SIGNALS:
    void shown();  // new frames on screen (tests and --screenshot wait for it)

private:
    struct Operand {
        QString label;
        TensorPtr tensor;
        QString file;  // the file it was read from, "" for a call's output
        std::optional<DatasetRef> ref;
        std::vector<int64_t> shape;       // the dataset's (tensor's, unless it is a block)
        std::vector<int64_t> blockStart;  // where tensor's [0, ...] lies; empty: tensor is all of it
        DType dtype = DType::Undefined;
        std::shared_ptr<const view::SliceSummary> streamed;  // instead of a tensor (see isStreamed)
        view::SliceSpec streamedSlice;
        int64_t bands = 0;
    };
    void buildTop(QVBoxLayout* layout);
    QWidget* buildMaps();
    QWidget* buildComparison();
    static void fill(Operand& o, DatasetForView d);
    static Operand operandOf(const DatasetRef& ref, DatasetForView d);
    static ViewOperand sideOf(const Operand& o);
    void read(const DatasetRef& ref);
    // B read (or read again for another slice, keeping the analysis) with A, as readPairForView.
    void readPair(const DatasetRef& bRef, bool keepAnalysis);
    void showPair(const DatasetRef& bRef, PairForView pair, bool keepAnalysis);
    void cancelAnalysis();
    PassControl passControl(uint64_t gen, const std::shared_ptr<std::atomic<bool>>& cancelled,
                            std::function<void(int)> show);
    void summarize(uint64_t gen, const ViewOperand& a, const ViewOperand& b,
                   const std::shared_ptr<std::atomic<bool>>& cancelled);
    bool needsSliceRead() const;
    void showReadProgress(uint64_t generation, const QString& label, double share);
    QString streamedReadout(qint64 row, qint64 col) const;
    uint64_t startRead(const QString& label);
    StreamControl streamControl(uint64_t gen, const QString& label);
    void setOperand(Operand operand);  // a new A: a comparison ends
    void analyze();
    void recompute();
    void showFrames(std::array<DisplayFrame, 3> frames);
    void showStats();
    void showVerdict();
    void onHover(qint64 row, qint64 col);
    void fail(const QString& message);
    const Operand* mapOperand(Map map) const;  // what a map shows, or null

    QLabel* title_;
    QToolButton* ab_;
    QCheckBox* sideBySide_;
    QComboBox* standard_;
    SliceControls* slice_;
    DisplayControls* controls_;
    HeatmapWidget* maps_[3];
    RangeHistogramWidget* histogram_;
    QLabel* stats_;
    QLabel* readout_;
    QWidget* comparison_;
    QLabel* verdict_;
    QToolButton* cancelCompare_;
    QTableView* table_;
    MetricsTableModel* metrics_;
    ChartsPanel* charts_;

    Operand a_, b_, e_;                           // A, the reference B, and the relative error (held or streamed as A)
    QString bNote_;                               // why B's maps are not drawn (readPairForView)
    std::optional<DatasetRef> pendingReference_;  // viewAndCompare's B, until A is read
    AnalysisPtr analysis_;
    std::shared_ptr<std::atomic<bool>> analysisCancelled_;  // the running analysis's stop flag
    QString message_;
    std::array<DisplayFrame, 3> frames_;
    uint64_t sliceOnlyAbove_ = kSliceOnlyAboveBytes;
    uint64_t bandBytes_ = StreamControl{}.bandBytes;
    uint64_t compareBandBytes_ = PassControl{}.bandBytes;
    int pendingReads_ = 0;
    bool analyzing_ = false;
    bool summarizing_ = false;  // the charts' pass after the verdict
    // readGeneration_ as the reading threads see it: a queued read the user moved on from (a
    // slider dragged across many slices) is skipped, not read.
    std::shared_ptr<std::atomic<uint64_t>> latestRead_ = std::make_shared<std::atomic<uint64_t>>(0);
    uint64_t readGeneration_ = 0, analysisGeneration_ = 0, computeGeneration_ = 0, shownGeneration_ = 0;
};

}  // namespace opscope::gui
