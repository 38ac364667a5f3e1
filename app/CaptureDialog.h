#pragma once
// File › Capture…: where the spans go (the open database, or a new one) and how they are received (the addresses
// to listen on for OTLP/HTTP and OTLP/gRPC, the quiet time after which a trace becomes a request, the period its
// requests join). The addresses and the quiet time are remembered.
#include <QDialog>

#include "tracelight/capture/OtlpReceiver.h"

class QDoubleSpinBox;
class QLineEdit;

namespace tracelight::app {

class CaptureDialog : public QDialog {
    Q_OBJECT
public:
    // openDatabase: the database the window has open ("" when none), the default destination.
    CaptureDialog(const QString& openDatabase, QWidget* parent = nullptr);

    QString database() const;       // where to store the spans (created when missing)
    ReceiverOptions options() const;  // the address, quiet time and period chosen
    void accept() override;         // remembers the addresses and the quiet time

private:
    QLineEdit* m_database = nullptr;
    QLineEdit* m_address = nullptr;
    QLineEdit* m_grpcAddress = nullptr;
    QDoubleSpinBox* m_quiet = nullptr;
    QLineEdit* m_period = nullptr;
};

} // namespace tracelight::app
