#include "CaptureDialog.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <cmath>

#include "common/FileDialogs.h"

namespace tracelight::app {

namespace {
const QString kAddressKey = QStringLiteral("capture/address");
const QString kGrpcAddressKey = QStringLiteral("capture/grpcAddress");
const QString kQuietKey = QStringLiteral("capture/quietSeconds");
} // namespace

CaptureDialog::CaptureDialog(const QString& openDatabase, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Capture live spans"));
    auto* form = new QFormLayout;

    m_database = new QLineEdit(openDatabase.isEmpty() ? QDir::home().filePath(QStringLiteral("capture.tldb")) : openDatabase, this);
    m_database->setToolTip(tr("The trace database the spans are stored in; a new one is created. The open database by default."));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString chosen = widgets::chooseFileToSave(this, tr("Capture into"), m_database->text(), tr("Tracelight databases (*.tldb)"));
        if (!chosen.isEmpty()) m_database->setText(chosen);
    });
    auto* databaseRow = new QHBoxLayout;
    databaseRow->addWidget(m_database, 1);
    databaseRow->addWidget(browse);
    auto* databaseLabel = new QLabel(tr("&Database:"), this);
    databaseLabel->setBuddy(m_database);
    form->addRow(databaseLabel, databaseRow);

    QSettings settings;
    m_address = new QLineEdit(settings.value(kAddressKey, QStringLiteral("127.0.0.1:4318")).toString(), this);
    m_address->setToolTip(tr("HOST:PORT to receive OTLP/HTTP on; 127.0.0.1 takes spans from this machine only, port 0 picks a free one"));
    form->addRow(tr("OTLP/&HTTP on:"), m_address);
    m_grpcAddress = new QLineEdit(settings.value(kGrpcAddressKey, QStringLiteral("127.0.0.1:4317")).toString(), this);
    m_grpcAddress->setPlaceholderText(tr("none"));
    m_grpcAddress->setToolTip(tr("HOST:PORT to receive OTLP/gRPC on; empty: no gRPC"));
    form->addRow(tr("OTLP/g&RPC on:"), m_grpcAddress);

    m_quiet = new QDoubleSpinBox(this);
    m_quiet->setRange(0.1, 3600.0);
    m_quiet->setDecimals(1);
    m_quiet->setSuffix(tr(" s"));
    // Shorter than serve's 5 s: in the window a trace should show soon; a span that comes later stores it again
    // (and redraws it), so a short quiet time costs re-assembly, not correctness.
    m_quiet->setValue(settings.value(kQuietKey, 1.0).toDouble());
    m_quiet->setToolTip(tr("A trace is shown once no span of it arrived for this long; a later span redraws it"));
    form->addRow(tr("&Quiet time:"), m_quiet);

    m_period = new QLineEdit(this);
    m_period->setPlaceholderText(tr("capture-<start time>"));
    m_period->setToolTip(tr("The period the captured requests join, to compare them with others"));
    form->addRow(tr("&Period:"), m_period);

    auto* hint = new QLabel(tr("Point OpenTelemetry exporters at <tt>http://ADDRESS</tt> "
                               "(<tt>OTEL_EXPORTER_OTLP_ENDPOINT</tt>): protocol http/protobuf or http/json at the HTTP "
                               "address, grpc at the gRPC one."),
                            this);
    hint->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Start Capture"));
    connect(buttons, &QDialogButtonBox::accepted, this, &CaptureDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(hint);
    layout->addWidget(buttons);
    resize(560, sizeHint().height());
}

QString CaptureDialog::database() const { return QFileInfo(m_database->text().trimmed()).absoluteFilePath(); }

ReceiverOptions CaptureDialog::options() const {
    ReceiverOptions options;
    options.httpAddress = m_address->text().trimmed().toStdString();
    options.grpcAddress = m_grpcAddress->text().trimmed().toStdString();
    options.capture.quietNs = static_cast<TimeNs>(std::llround(m_quiet->value() * 1e9));
    options.capture.period = m_period->text().trimmed().toStdString();  // empty: named by its start time
    return options;
}

void CaptureDialog::accept() {
    QSettings settings;
    settings.setValue(kAddressKey, m_address->text().trimmed());
    settings.setValue(kGrpcAddressKey, m_grpcAddress->text().trimmed());
    settings.setValue(kQuietKey, m_quiet->value());
    QDialog::accept();
}

} // namespace tracelight::app
