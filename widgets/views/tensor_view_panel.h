// The texture viewer of the debugger: any tensor of the plan at the current step (inputs,
// intermediates, outputs), the reference and the error maps, sliced to 2-D, coloured, with
// its histogram, hover/click readout, overlays, A/B and side-by-side comparison with the
// reference, and PNG export. Fetches tensors through the context; display math runs on the
// thread pool; the heatmaps only paint.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <map>
#include <set>

#include "session/session_types.h"
#include "views/heatmap_menu.h"
#include "views/tensor_display.h"

class QCheckBox;
class QSettings;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QToolButton;

namespace opscope::gui {

class DebugContext;
class DisplayControls;
class HeatmapWidget;
class RangeHistogramWidget;
class SliceControls;

class TensorViewPanel : public QWidget {
    Q_OBJECT
public:
    explicit TensorViewPanel(DebugContext* context, QWidget* parent = nullptr);

    // Shows the tensor if the current plan has it; false otherwise.
    bool showTensor(const TensorKey& key);
    TensorKey currentKey() const;
    QStringList tensorLabels() const;
    // Moves the slice to contain the element and marks it.
    void showElement(const std::vector<int64_t>& index);
    void setAbMode(bool showReference);
    void setSideBySide(bool on);
    // Saves the visible heatmap(s) with the histogram and colour bar.
    bool exportPng(const QString& path);
    // Display settings, including the slice (for tests, screenshots and QSettings).
    DisplaySettings settings() const;
    void setSettings(const DisplaySettings& settings);
    // Display preferences for values and for error maps (QSettings "tensorView/...").
    void savePreferences(QSettings& settings) const;
    void loadPreferences(const QSettings& settings);

    // True while tensors are being fetched or a frame computed.
    bool isLoading() const { return !pending_.empty() || shownGeneration_ != computeGeneration_; }
    HeatmapWidget* heatmap() const { return heatmap_; }
    const DisplayFrame& frame() const { return frame_; }
    QString readout() const;
    // What the main (or side) heatmap shows, for its right-click menu.
    HeatmapContent heatmapContent(bool side) const;

Q_SIGNALS:
    // A new frame is on screen (tests and --screenshot wait for it).
    void frameShown();

private:
    struct Entry {
        TensorKey key;
        std::string output;   // the operator output it belongs to, "" if none
        bool errors = false;  // an error map (sequential colours)
        QString label;
    };
    QHBoxLayout* buildTopBar();
    QWidget* buildViewArea();
    void connectControls();
    void connectContext();
    void rebuildEntries();
    void onEntryChosen(int index);
    void refetch();
    void recompute();
    void showFrames(const DisplayFrame& main, const DisplayFrame& side);
    void onHover(qint64 row, qint64 col);
    void onClick(qint64 row, qint64 col);
    // The element under the pointer, else the picked one, described from the tensors fetched now.
    void refreshReadout();
    // The entry is an executor slot that no step has written yet at the current position.
    bool shownSlotUnwritten() const;
    const Entry* entry() const;
    std::optional<TensorKey> partnerKey() const;
    TensorKey dataKey() const;  // the tensor the entry is drawn from (the output for an error map)
    DisplayRequest displayRequest(const TensorPtr& primary, const DisplaySettings& s, bool unwritten) const;
    TensorPtr fetched(const std::optional<TensorKey>& key) const;
    QString describeElement(const std::vector<int64_t>& index) const;

    DebugContext* context_;
    QComboBox* tensor_;
    QToolButton* ab_;
    QToolButton* fit_;
    QCheckBox* sideBySide_;
    QLabel* info_;
    SliceControls* slice_;
    DisplayControls* controls_;
    QWidget* viewArea_;
    HeatmapWidget* heatmap_;
    HeatmapWidget* sideHeatmap_;
    RangeHistogramWidget* histogram_;
    QLabel* readout_;
    QLabel* stats_;

    std::vector<Entry> entries_;
    DisplaySettings kindSettings_[2];  // values, error maps
    int shownKind_ = 0;
    int current_ = -1;
    std::map<TensorKey, TensorPtr> fetched_;
    std::set<TensorKey> pending_;
    uint64_t fetchGeneration_ = 0;
    uint64_t computeGeneration_ = 0;
    std::shared_ptr<std::atomic<uint64_t>> latestCompute_ = std::make_shared<std::atomic<uint64_t>>(0);
    uint64_t shownGeneration_ = 0;
    DisplayFrame frame_;
    std::vector<int64_t> marked_;  // picked element index, empty if none
    bool hoverActive_ = false;
    qint64 hoverRow_ = -1, hoverCol_ = -1;  // the pointer's cell in the shown slice
};

}  // namespace opscope::gui
