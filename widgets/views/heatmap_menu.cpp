#include "views/heatmap_menu.h"

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>

#include "opscope/import/npy.h"
#include "opscope/view/slice_export.h"
#include "session/session_io.h"
#include "views/heatmap_widget.h"

namespace opscope::gui {

namespace {

// Runs a writer, turning its exception into the sentence the user sees.
template <class Fn>
QString attempt(const HeatmapContent& content, Fn write) {
    if (!content.tensor) return QObject::tr("nothing is shown");
    try {
        write();
        return {};
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
}

std::vector<std::string> inputsOf(const HeatmapContent& c) {
    return c.sourceFile.isEmpty() ? std::vector<std::string>{} : std::vector<std::string>{c.sourceFile.toStdString()};
}

}  // namespace

QString sliceText(const std::vector<int64_t>& shape, const view::SliceSpec& given) {
    const view::SliceSpec s = view::normalizeSlice(shape, given);
    QStringList parts;
    for (std::size_t a = 0; a < shape.size(); ++a) {
        const int axis = static_cast<int>(a);
        parts << (axis == s.rowAxis || axis == s.colAxis ? QStringLiteral(":") : QString::number(s.index[a]));
    }
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}

QString contentTitle(const HeatmapContent& c) {
    QString t = c.tensorName;
    if (c.tensor)
        t += QLatin1Char(' ') + sliceText(c.datasetShape.empty() ? c.tensor->shape() : c.datasetShape, c.slice);
    if (!c.caseName.isEmpty()) t += QStringLiteral(" · ") + c.caseName;
    return t;
}

QString fullPrecisionValue(const HeatmapContent& c, int64_t row, int64_t col) {
    if (!c.tensor) return {};
    const view::SliceSpec s = view::normalizeSlice(c.tensor->shape(), c.slice);
    const double v = view::elementValue(c.tensor->view(), view::elementIndex(s, row, col));
    return QString::fromStdString(view::fullPrecisionText(v, c.tensor->dtype()));
}

QString exportSliceCsv(const HeatmapContent& c, const QString& path) {
    return attempt(c, [&] {
        const view::Plane plane = view::extractPlane(c.tensor->view(), c.slice);
        writeFileAtomically(path.toStdString(), QByteArray::fromStdString(view::planeCsv(plane, c.tensor->dtype())),
                            inputsOf(c));
    });
}

QString exportSliceNpy(const HeatmapContent& c, const QString& path) {
    return attempt(c, [&] {
        const HostTensor slice = HostTensor::copyOf(view::sliceView(c.tensor->view(), c.slice));
        // numpy has no bfloat16: write its values as float32 (exact) rather than raw bits.
        const HostTensor out = slice.dtype() == DType::BFloat16
                                   ? HostTensor::fromDoubles(DType::Float32, slice.shape(), slice.toDoubles())
                                   : slice;
        import::writeNpy(path.toStdString(), out.view(), inputsOf(c));
    });
}

QString exportLabelledPng(const HeatmapContent& c, HeatmapWidget* heatmap, const QString& path) {
    return attempt(c, [&] {
        const QImage map = heatmap->grab().toImage();
        const QFontMetrics fm(heatmap->font());
        const int band = fm.height() + 8;
        QImage out(map.width(), map.height() + band, QImage::Format_RGB32);
        out.fill(Qt::white);
        QPainter p(&out);
        p.drawImage(0, band, map);
        p.setPen(Qt::black);
        p.setFont(heatmap->font());
        p.drawText(QRect(6, 0, out.width() - 12, band), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(contentTitle(c), Qt::ElideMiddle, out.width() - 12));
        p.end();
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!out.save(&buffer, "PNG")) throw std::runtime_error("cannot encode the PNG");
        writeFileAtomically(path.toStdString(), bytes, inputsOf(c));
    });
}

namespace {

// Asks for a destination, then writes; a failure is shown, never lost.
void exportWithDialog(QWidget* parent, const QString& title, const QString& suffix, const QString& filter,
                      const std::function<QString(const QString&)>& write) {
    const QString dir = QSettings().value("lastDir").toString();
    const QString dest = QFileDialog::getSaveFileName(parent, title, dir + "/slice." + suffix, filter);
    if (dest.isEmpty()) return;
    const QString error = write(dest);
    if (!error.isEmpty()) QMessageBox::warning(parent, QObject::tr("Cannot export"), error);
}

}  // namespace

void fillHeatmapMenu(QMenu* menu, HeatmapWidget* heatmap, const QPoint& pos, const HeatmapContent& c) {
    int64_t row = -1, col = -1;
    const bool onCell = c.tensor && heatmap->elementAt(pos, &row, &col);
    const QString value = onCell ? fullPrecisionValue(c, row, col) : QString();
    QAction* copy = menu->addAction(onCell ? QObject::tr("Copy value %1").arg(value) : QObject::tr("Copy value"));
    copy->setObjectName("copyValue");
    copy->setEnabled(onCell);
    QObject::connect(copy, &QAction::triggered, menu, [value] { QApplication::clipboard()->setText(value); });
    menu->addSeparator();
    QAction* csv = menu->addAction(QObject::tr("Export slice as CSV…"));
    csv->setObjectName("exportCsv");
    QAction* npy = menu->addAction(QObject::tr("Export slice as .npy…"));
    npy->setObjectName("exportNpy");
    QAction* png = menu->addAction(QObject::tr("Export PNG with labels…"));
    png->setObjectName("exportPng");
    for (QAction* a : {csv, npy, png}) a->setEnabled(c.tensor != nullptr);
    QObject::connect(csv, &QAction::triggered, heatmap, [heatmap, c] {
        exportWithDialog(heatmap, QObject::tr("Export slice as CSV"), "csv", QObject::tr("CSV (*.csv)"),
                         [&](const QString& p) { return exportSliceCsv(c, p); });
    });
    QObject::connect(npy, &QAction::triggered, heatmap, [heatmap, c] {
        exportWithDialog(heatmap, QObject::tr("Export slice as .npy"), "npy", QObject::tr("numpy arrays (*.npy)"),
                         [&](const QString& p) { return exportSliceNpy(c, p); });
    });
    QObject::connect(png, &QAction::triggered, heatmap, [heatmap, c] {
        exportWithDialog(heatmap, QObject::tr("Export PNG"), "png", QObject::tr("PNG images (*.png)"),
                         [&](const QString& p) { return exportLabelledPng(c, heatmap, p); });
    });
}

void attachHeatmapMenu(HeatmapWidget* heatmap, std::function<HeatmapContent()> content) {
    heatmap->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(heatmap, &QWidget::customContextMenuRequested, heatmap,
                     [heatmap, content = std::move(content)](const QPoint& pos) {
                         QMenu menu(heatmap);
                         fillHeatmapMenu(&menu, heatmap, pos, content());
                         menu.exec(heatmap->mapToGlobal(pos));
                     });
}

}  // namespace opscope::gui
