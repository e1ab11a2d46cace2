#pragma once

// The connect dialog: where the shard map is, how to reach the nodes, and the connection's profile.

#include "widgets/session/connection_spec.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QGroupBox;
class QLineEdit;
class QSpinBox;
class QStackedWidget;
class QVBoxLayout;

namespace shardmap::widgets {

class InlineMessage;
class RecentConnections;

// Asks where the shard map is (an SQLite file; etcd endpoints + prefix with optional TLS and
// user/password; or shardmapd's Admin API with mutual TLS or a token file) and how to reach the
// nodes (optional TLS files). Problems with the input are shown inline and keep the dialog open.
// On accept the connection is remembered in RecentConnections; a password goes to the system
// keyring, asynchronously: the dialog closes once the keyring confirmed, or says inline that the
// password was not saved and closes on the next Connect.
class ConnectDialog : public QDialog {
    Q_OBJECT
public:
    explicit ConnectDialog(RecentConnections* recent, QWidget* parent = nullptr);

    ConnectionSpec spec() const;
    void setSpec(const ConnectionSpec& spec);
    // The first problem with the current input as a translated sentence; empty when acceptable.
    QString validationError() const;

    void accept() override;

private:
    struct Problem {
        QString message;
        QWidget* field = nullptr;
    };
    enum StorePage { SqlitePage, EtcdPage, ControllerPage };

    QFormLayout* createStoreChoice();
    void addStorePages(QVBoxLayout* layout);
    QFormLayout* createIntervalForm();
    QGroupBox* createProfileBox();
    void addErrorAndButtons(QVBoxLayout* layout);
    QWidget* createSqlitePage();
    QWidget* createEtcdPage();
    QWidget* createControllerPage();
    Problem controllerProblem() const;
    QGroupBox* createNodeTlsBox();
    QLineEdit* addFileRow(QFormLayout* form, const QString& label, const QString& name, const QString& filter);
    void fillRecentCombo();
    void applyRecent(int index);
    void showStorePage(int index);
    void loadSavedPassword(const QString& key);
    Problem firstProblem() const;
    Problem etcdProblem() const;
    QString etcdStoreUri() const;
    void setEtcdUri(const QString& uri);
    void showError(const Problem& problem);
    void setWaitingForKeyring(bool waiting);
    void onPasswordSaved(const QString& key);
    void onPasswordNotSaved(const QString& key, const QString& message);

    RecentConnections* m_recent;
    QComboBox* m_recentCombo = nullptr;
    QComboBox* m_storeKind = nullptr;
    QStackedWidget* m_storePages = nullptr;
    QLineEdit* m_sqlitePath = nullptr;
    QLineEdit* m_endpoints = nullptr;
    QLineEdit* m_prefix = nullptr;
    QLineEdit* m_user = nullptr;
    QLineEdit* m_password = nullptr;
    QLineEdit* m_etcdCa = nullptr;
    QLineEdit* m_etcdCert = nullptr;
    QLineEdit* m_etcdKey = nullptr;
    QLineEdit* m_controller = nullptr;
    QLineEdit* m_controllerCa = nullptr;
    QLineEdit* m_controllerCert = nullptr;
    QLineEdit* m_controllerKey = nullptr;
    QLineEdit* m_controllerToken = nullptr;
    QLineEdit* m_nodeCa = nullptr;
    QLineEdit* m_nodeCert = nullptr;
    QLineEdit* m_nodeKey = nullptr;
    QSpinBox* m_metricsInterval = nullptr;
    QLineEdit* m_profileName = nullptr;
    QComboBox* m_environment = nullptr;
    QCheckBox* m_readOnly = nullptr;
    QString m_colour;
    InlineMessage* m_passwordNote = nullptr;
    InlineMessage* m_error = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
    QString m_pendingKey; // the keyring is saving this connection's password
    ConnectionSpec m_unsavedPasswordSpec; // told the user its password was not saved
};

} // namespace shardmap::widgets
