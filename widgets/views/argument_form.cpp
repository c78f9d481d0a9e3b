#include "views/argument_form.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QVBoxLayout>
#include <optional>

#include "opscope/ops/operator.h"
#include "session/argument_binding.h"
#include "session/debug_context.h"
#include "palette.h"
#include "views/tensor_slot_widget.h"
#include "views/panel_setup.h"

namespace opscope::gui {

namespace {

const ops::ArgSpec* findAttr(const ops::OpSchema& s, const std::string& name) {
    for (const ops::ArgSpec& a : s.attributes)
        if (a.name == name) return &a;
    return nullptr;
}

// "1, 2, 3" or "[1,2,3]" -> numbers; false on anything else.
bool parseList(QString text, std::vector<QString>* items) {
    text = text.trimmed();
    if (text.startsWith('[')) text = text.mid(1);
    if (text.endsWith(']')) text.chop(1);
    items->clear();
    if (text.trimmed().isEmpty()) return true;
    for (const QString& part : text.split(',')) items->push_back(part.trimmed());
    return true;
}

// Each item of a list through `parseOne(item, &ok)`; nothing when it refuses one.
template <class T, class ParseOne>
std::optional<std::vector<T>> parseItems(const QString& text, ParseOne parseOne) {
    std::vector<QString> items;
    parseList(text, &items);
    std::vector<T> values;
    for (const QString& item : items) {
        bool ok = false;
        const T value = parseOne(item, &ok);
        if (!ok) return std::nullopt;
        values.push_back(value);
    }
    return values;
}

std::vector<int64_t> asIntVector(const ParamValue& v) {
    if (auto p = std::get_if<std::vector<int64_t>>(&v)) return *p;
    if (auto p = std::get_if<std::vector<bool>>(&v)) return {p->begin(), p->end()};
    if (auto p = std::get_if<int64_t>(&v)) return {*p};
    if (auto p = std::get_if<bool>(&v)) return {*p ? 1 : 0};
    return {};
}

QString listText(const ParamValue& v) {
    QStringList parts;
    if (auto p = std::get_if<std::vector<bool>>(&v)) {
        for (bool b : *p) parts << (b ? "true" : "false");
    } else if (auto d = std::get_if<std::vector<double>>(&v)) {
        for (double x : *d) parts << QString::number(x);
    } else {
        for (int64_t x : asIntVector(v)) parts << QString::number(x);
    }
    return parts.join(", ");
}

}  // namespace

ArgumentForm::ArgumentForm(DebugContext* context, QWidget* parent) : QWidget(parent), context_(context) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* head = new QFormLayout();
    operator_ = new QComboBox(this);
    for (const ops::Operator* op : ops::allOperators())
        operator_->addItem(QString::fromStdString(op->schema().name), QString::fromStdString(op->schema().shortName));
    operator_->setCurrentIndex(-1);
    operator_->setToolTip(tr("Every registered operator; its arguments come from its schema"));
    operator_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    operator_->setMinimumContentsLength(16);
    head->addRow(tr("Operator"), operator_);
    summary_ = wrappedLabel(this);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    summary_->setStyleSheet("color: gray");
    head->addRow(summary_);
    product_ = new QComboBox(this);
    for (Product p : allProducts()) product_->addItem(QString::fromUtf8(productName(p)), static_cast<int>(p));
    // Show the context's product from the start, not the first list entry.
    product_->setCurrentIndex(product_->findData(static_cast<int>(context_->product())));
    product_->setToolTip(tr("The emulated product: validation rules and dtypes differ"));
    product_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    product_->setMinimumContentsLength(14);
    runAs_ = new QComboBox(this);
    runAs_->addItem(tr("as stored"), static_cast<int>(DType::Undefined));
    for (DType d : {DType::Float32, DType::Float16, DType::BFloat16})
        runAs_->addItem(QString::fromUtf8(dtypeName(d)), static_cast<int>(d));
    runAs_->setToolTip(
        tr("Run as: convert every floating tensor to this dtype to see what the device's precision does"));
    head->addRow(tr("Product"), product_);
    head->addRow(tr("Run as"), runAs_);
    layout->addLayout(head);

    fieldsHost_ = new QVBoxLayout();
    layout->addLayout(fieldsHost_);
    generalError_ = wrappedLabel(this);
    generalError_->setStyleSheet("color: #b71c1c");
    generalError_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    generalError_->hide();
    layout->addWidget(generalError_);
    auto* bottom = new QHBoxLayout();
    prepare_ = new QPushButton(tr("Prepare"), this);
    prepare_->setToolTip(tr("Phase 1: validate the arguments and build the plan (Ctrl+P)"));
    bottom->addWidget(prepare_);
    planSummary_ = wrappedLabel(this);
    planSummary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    bottom->addWidget(planSummary_, 1);
    layout->addLayout(bottom);
    layout->addStretch(1);

    connect(operator_, &QComboBox::activated, this, [this](int i) {
        if (!updating_) context_->setOperator(operator_->itemData(i).toString());
    });
    connect(product_, &QComboBox::activated, this,
            [this](int i) { context_->setProduct(static_cast<Product>(product_->itemData(i).toInt())); });
    connect(runAs_, &QComboBox::activated, this,
            [this](int i) { context_->setRunAs(static_cast<DType>(runAs_->itemData(i).toInt())); });
    connect(prepare_, &QPushButton::clicked, context_, &DebugContext::prepare);
    connect(context_, &DebugContext::operatorChanged, this, &ArgumentForm::rebuild);
    connect(context_, &DebugContext::argumentsChanged, this, &ArgumentForm::onArgumentsChanged);
    connect(context_, &DebugContext::prepareFailed, this, &ArgumentForm::showError);
    connect(context_, &DebugContext::planChanged, this, [this] {
        if (!context_->prepareError()) clearErrors();
        const PlanInfo& p = context_->plan();
        planSummary_->setText(context_->isPrepared() ? tr("<b>Prepared</b>: %1 steps, %2 slots, workspace %3")
                                                           .arg(p.steps.size())
                                                           .arg(p.slots.size())
                                                           .arg(formatBytes(double(p.workspaceBytes)))
                                                     : QString());
    });
    connect(context_, &DebugContext::busyChanged, this,
            [this](bool busy) { prepare_->setEnabled(!busy || !context_->isPrepared()); });
    rebuild();
}

// A focused line edit emits editingFinished when ~QWidget takes its focus away, and by then
// rows_ is gone: the editors go first, while the form is whole, and commit nothing.
ArgumentForm::~ArgumentForm() {
    updating_ = true;
    delete fields_;
}

void ArgumentForm::rebuild() {
    rows_.clear();
    delete fields_;
    fields_ = new QWidget(this);
    fieldsHost_->addWidget(fields_);
    auto* l = new QVBoxLayout(fields_);
    l->setContentsMargins(0, 0, 0, 0);
    const ops::Operator* op = context_->op();
    updating_ = true;
    operator_->setCurrentIndex(op ? operator_->findText(QString::fromStdString(op->schema().name)) : -1);
    updating_ = false;
    summary_->setText(op ? QString::fromStdString(op->schema().summary)
                         : tr("Choose an operator, or load a case from the file."));
    if (!op) return;
    const ops::OpSchema& s = op->schema();

    auto errorLabel = [this] {
        auto* e = wrappedLabel(fields_);
        e->setStyleSheet("color: #b71c1c; font-weight: bold");
        e->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // long words must not widen the form
        e->hide();
        return e;
    };
    auto* tensors = new QGroupBox(tr("Tensors"), fields_);
    auto* tf = new QFormLayout(tensors);
    for (const ops::ArgSpec& a : s.tensors) {
        Row row;
        row.tensor = new TensorSlotWidget(a.optional, tensors);
        row.tensor->setToolTip(QString::fromStdString(a.help));
        row.editor = row.tensor;
        row.error = errorLabel();
        const std::string name = a.name;
        connect(row.tensor, &TensorSlotWidget::datasetDropped, this,
                [this, name](const QString& path) { context_->bindDataset(name, path); });
        connect(row.tensor, &TensorSlotWidget::fileChosen, this,
                [this, name](const QString& spec) { context_->bindFile(name, spec); });
        connect(row.tensor, &TensorSlotWidget::emptySlotDoubleClicked, this, [this, name] { bindSelected(name); });
        connect(row.tensor, &TensorSlotWidget::cleared, this, [this, name] { context_->unbindTensor(name); });
        auto* label = new QLabel(QString::fromStdString(a.name) + (a.optional ? tr(" (opt.)") : QString()), tensors);
        label->setToolTip(QString::fromStdString(a.help));
        auto* box = new QVBoxLayout();
        box->setSpacing(0);
        box->addWidget(row.tensor);
        box->addWidget(row.error);
        tf->addRow(label, box);
        rows_[a.name] = row;
    }
    l->addWidget(tensors);

    auto* attrs = new QGroupBox(tr("Attributes"), fields_);
    auto* af = new QFormLayout(attrs);
    for (std::size_t i = 0; i < s.attributes.size(); ++i) {
        const ops::ArgSpec& a = s.attributes[i];
        Row& row = rows_[a.name];
        row.error = errorLabel();
        row.editor = makeAttributeEditor(i);
        auto* label = new QLabel(QString::fromStdString(a.name), attrs);
        label->setToolTip(QString::fromStdString(a.help) + tr("\n(%1)").arg(ops::argKindName(a.kind)));
        row.editor->setToolTip(QString::fromStdString(a.help));
        auto* box = new QVBoxLayout();
        box->setSpacing(0);
        box->addWidget(row.editor);
        box->addWidget(row.error);
        af->addRow(label, box);
    }
    if (s.attributes.empty()) attrs->hide();
    l->addWidget(attrs);
    refreshValues();
}

QWidget* ArgumentForm::makeAttributeEditor(std::size_t index) {
    const ops::OpSchema& s = context_->op()->schema();
    const ops::ArgSpec& a = s.attributes[index];
    const std::string name = a.name;
    Row& row = rows_[name];
    switch (a.kind) {
        case ops::ArgKind::Bool: {
            auto* c = new QCheckBox(fields_);
            connect(c, &QCheckBox::toggled, this, [this, name] { commitAttribute(name); });
            return c;
        }
        case ops::ArgKind::Enum: {
            auto* c = new QComboBox(fields_);
            for (std::size_t k = 0; k < a.enumNames.size(); ++k)
                c->addItem(QStringLiteral("%1 (%2)").arg(QString::fromStdString(a.enumNames[k])).arg(k), qint64(k));
            connect(c, &QComboBox::activated, this, [this, name] { commitAttribute(name); });
            return c;
        }
        case ops::ArgKind::BoolArray:
            if (name == s.maskArgument) {
                auto* w = new QWidget(fields_);
                auto* h = new QHBoxLayout(w);
                h->setContentsMargins(0, 0, 0, 0);
                std::vector<QCheckBox*> boxes;
                auto* flow = new QVBoxLayout();  // one box per line: output names are long
                flow->setContentsMargins(0, 0, 0, 0);
                flow->setSpacing(0);
                h->addLayout(flow);
                for (const ops::OutputSpec& o : s.outputs) {
                    if (o.maskIndex < 0) continue;
                    auto* c = new QCheckBox(QString::fromStdString(o.name), w);
                    c->setProperty("maskIndex", o.maskIndex);
                    connect(c, &QCheckBox::toggled, this, [this, name] { commitAttribute(name); });
                    flow->addWidget(c);
                    boxes.push_back(c);
                }
                h->addStretch(1);
                row.mask = boxes;
                return w;
            }
            [[fallthrough]];
        default: {
            auto* e = new QLineEdit(fields_);
            if (a.kind == ops::ArgKind::Int)
                e->setValidator(new QRegularExpressionValidator(QRegularExpression("-?\\d+"), e));
            else if (a.kind == ops::ArgKind::Float)
                e->setValidator(new QDoubleValidator(e));
            if (a.optional)
                e->setPlaceholderText(tr("absent"));
            else if (a.kind == ops::ArgKind::IntArray || a.kind == ops::ArgKind::BoolArray)
                e->setPlaceholderText(tr("comma-separated"));
            connect(e, &QLineEdit::editingFinished, this, [this, name] { commitAttribute(name); });
            return e;
        }
    }
}

void ArgumentForm::commitAttribute(const std::string& name) {
    if (updating_ || !context_->op()) return;
    const ops::ArgSpec* a = findAttr(context_->op()->schema(), name);
    const Row& row = rows_[name];
    if (!a || !row.editor) return;
    switch (a->kind) {
        case ops::ArgKind::Bool: context_->setAttribute(name, static_cast<QCheckBox*>(row.editor)->isChecked()); return;
        case ops::ArgKind::Enum:
            context_->setAttribute(
                name, static_cast<int64_t>(static_cast<QComboBox*>(row.editor)->currentData().toLongLong()));
            return;
        default: break;
    }
    if (!row.mask.empty()) {
        std::vector<bool> mask;
        for (QCheckBox* c : row.mask) {
            const std::size_t i = static_cast<std::size_t>(c->property("maskIndex").toInt());
            if (mask.size() <= i) mask.resize(i + 1, false);
            mask[i] = c->isChecked();
        }
        context_->setAttribute(name, mask);
        return;
    }
    auto* e = static_cast<QLineEdit*>(row.editor);
    const QString text = e->text().trimmed();
    if (text.isEmpty() && a->optional) {
        context_->clearAttribute(name);
        return;
    }
    bool ok = true;
    switch (a->kind) {
        case ops::ArgKind::Int: {
            const qlonglong v = text.toLongLong(&ok);
            if (ok) context_->setAttribute(name, static_cast<int64_t>(v));
            break;
        }
        case ops::ArgKind::Float: {
            const double v = text.toDouble(&ok);
            if (ok) context_->setAttribute(name, v);
            break;
        }
        case ops::ArgKind::IntArray: {
            const auto v = parseItems<int64_t>(
                text, [](const QString& item, bool* good) { return static_cast<int64_t>(item.toLongLong(good)); });
            ok = v.has_value();
            if (ok) context_->setAttribute(name, *v);
            break;
        }
        case ops::ArgKind::BoolArray: {
            const auto v = parseItems<bool>(text, [](const QString& item, bool* good) {
                const QString t = item.toLower();
                *good = t == "true" || t == "1" || t == "false" || t == "0";
                return t == "true" || t == "1";
            });
            ok = v.has_value();
            if (ok) context_->setAttribute(name, *v);
            break;
        }
        default: break;
    }
    if (!ok) {
        rows_[name].error->setText(
            tr("'%1' is not a valid %2").arg(text, QString::fromUtf8(ops::argKindName(a->kind))));
        rows_[name].error->show();
    }
}

void ArgumentForm::refreshValues() {
    updating_ = true;
    product_->setCurrentIndex(product_->findData(static_cast<int>(context_->product())));
    runAs_->setCurrentIndex(runAs_->findData(static_cast<int>(context_->runAs())));
    const ops::Operator* op = context_->op();
    if (!op) {
        updating_ = false;
        return;
    }
    const ArgumentState& st = context_->arguments();
    for (const ops::ArgSpec& a : op->schema().tensors) {
        Row& row = rows_[a.name];
        auto it = st.tensors.find(a.name);
        if (it == st.tensors.end()) {
            row.tensor->setBinding({}, {});
        } else {
            const HostTensor& t = it->second.tensor;
            row.tensor->setBinding(QString::fromStdString(it->second.origin),
                                   QString::fromUtf8(dtypeName(t.dtype())) + formatShape(t.shape()));
        }
    }
    for (const ops::ArgSpec& a : op->schema().attributes) {
        Row& row = rows_[a.name];
        auto it = st.attributes.find(a.name);
        const bool present = it != st.attributes.end();
        const ParamValue v = present ? it->second : a.defaultValue;
        if (!row.mask.empty()) {
            const std::vector<int64_t> bits = asIntVector(v);
            for (QCheckBox* c : row.mask) {
                const std::size_t i = static_cast<std::size_t>(c->property("maskIndex").toInt());
                c->setChecked(i < bits.size() && bits[i] != 0);
            }
            continue;
        }
        switch (a.kind) {
            case ops::ArgKind::Bool: {
                const std::vector<int64_t> b = asIntVector(v);
                static_cast<QCheckBox*>(row.editor)->setChecked(!b.empty() && b[0] != 0);
                break;
            }
            case ops::ArgKind::Enum: {
                const std::vector<int64_t> b = asIntVector(v);
                auto* c = static_cast<QComboBox*>(row.editor);
                c->setCurrentIndex(b.empty() ? -1 : c->findData(qint64(b[0])));
                break;
            }
            default: {
                auto* e = static_cast<QLineEdit*>(row.editor);
                if (e->hasFocus()) break;
                if (!present && a.optional)
                    e->clear();
                else if (a.kind == ops::ArgKind::IntArray || a.kind == ops::ArgKind::BoolArray)
                    e->setText(listText(v));
                else
                    e->setText(QString::fromStdString(paramToString(v)));
            }
        }
    }
    updating_ = false;
}

void ArgumentForm::bindSelected(const std::string& argument) {
    const QString path = context_->selectedDataset();
    if (path.isEmpty()) {
        Q_EMIT context_->statusMessage(
            tr("Select a dataset in the file tree first, then double-click %1").arg(QString::fromStdString(argument)),
            true);
        return;
    }
    context_->bindDataset(argument, path);
}

void ArgumentForm::onArgumentsChanged() {
    refreshValues();
    if (context_->prepareError()) return;  // the operator's own message stays
    clearErrors();
    showShapeNotes();
}

// What the bound shapes contradict ("group (3) does not divide C (4)") beside the argument it
// names, until the next prepare says more.
void ArgumentForm::showShapeNotes() {
    if (!context_->op()) return;
    for (const std::string& note : context_->shapeNotes()) {
        auto it = rows_.find(faultyArgument(context_->op()->schema(), note));
        QLabel* label = it != rows_.end() && it->second.error ? it->second.error : generalError_;
        label->setText(QStringLiteral("⚠ ") + QString::fromStdString(note));
        label->setToolTip(QString::fromStdString(note));
        label->show();
    }
}

void ArgumentForm::clearErrors() {
    for (auto& [name, row] : rows_)
        if (row.error) row.error->hide();
    generalError_->hide();
}

void ArgumentForm::showError(const QString& argument, int code, const QString& message) {
    clearErrors();
    const QString brief = QString::fromStdString(stripMessagePrefix(message.toStdString()));
    const QString text = code ? QStringLiteral("%1: %2").arg(code).arg(brief) : brief;
    auto it = rows_.find(argument.toStdString());
    if (it != rows_.end() && it->second.error) {
        it->second.error->setToolTip(message);
        it->second.error->setText(QStringLiteral("⚠ ") + text);
        it->second.error->show();
        if (it->second.editor) it->second.editor->setFocus();
    } else {
        generalError_->setText(QStringLiteral("⚠ ") + text);
        generalError_->show();
    }
}

QString ArgumentForm::errorFor(const std::string& argument) const {
    auto it = rows_.find(argument);
    if (it != rows_.end() && it->second.error && !it->second.error->isHidden()) return it->second.error->text();
    return {};
}

QWidget* ArgumentForm::editorFor(const std::string& argument) const {
    auto it = rows_.find(argument);
    return it == rows_.end() ? nullptr : it->second.editor;
}

}  // namespace opscope::gui
