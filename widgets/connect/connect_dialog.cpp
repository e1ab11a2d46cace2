// ConnectDialog's implementation: one page per kind of store, the input checked field by field into
// a ConnectionSpec, and the password saved to the keyring before the dialog closes.
#include "widgets/connect/connect_dialog.h"

#include "widgets/connect/recent_connections.h"
#include "widgets/style/file_dialogs.h"
#include "widgets/style/inline_message.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStackedWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace shardmap::widgets {

namespace {

const auto kSqliteScheme = QStringLiteral("sqlite:");
const auto kEtcdScheme = QStringLiteral("etcd://");

QStringList endpointList(const QString& text)
{
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    return text.split(separators, Qt::SkipEmptyParts);
}

bool isHostPort(const QString& endpoint)
{
    static const QRegularExpression hostPort(QStringLiteral("^([A-Za-z0-9._-]+|\\[[0-9A-Fa-f:.]+\\]):([0-9]{1,5})$"));
    const QRegularExpressionMatch match = hostPort.match(endpoint);
    if (!match.hasMatch()) {
        return false;
    }
    const int port = match.captured(2).toInt();
    return port > 0 && port <= 65535;
}

QString trimmedPrefix(const QString& text)
{
    QString prefix = text.trimmed();
    while (prefix.startsWith(QLatin1Char('/'))) {
        prefix.remove(0, 1);
    }
    while (prefix.endsWith(QLatin1Char('/'))) {
        prefix.chop(1);
    }
    return prefix;
}

QString encoded(const QString& value)
{
    // core's URI parser percent-decodes option values; '/' stays readable.
    return QString::fromLatin1(QUrl::toPercentEncoding(value, "/"));
}

} // namespace

ConnectDialog::ConnectDialog(RecentConnections* recent, QWidget* parent)
    : QDialog(parent)
    , m_recent(recent)
{
    setWindowTitle(tr("Connect to a Fleet"));
    // Wide enough for a certificate's path under /etc to show whole.
    setMinimumWidth(fontMetrics().averageCharWidth() * 100);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(createStoreChoice());
    addStorePages(layout);
    layout->addWidget(createNodeTlsBox());
    layout->addLayout(createIntervalForm());
    layout->addWidget(createProfileBox());
    addErrorAndButtons(layout);

    fillRecentCombo();
    if (m_recent) {
        connect(m_recent, &RecentConnections::passwordSaved, this, &ConnectDialog::onPasswordSaved);
        connect(m_recent, &RecentConnections::passwordNotSaved, this, &ConnectDialog::onPasswordNotSaved);
    }
}

// A recent connection to start from, and the kind of store the shard map is in.
QFormLayout* ConnectDialog::createStoreChoice()
{
    auto* top = new QFormLayout;
    m_recentCombo = new QComboBox(this);
    m_recentCombo->setObjectName(QStringLiteral("recentCombo"));
    m_recentCombo->setPlaceholderText(tr("Choose a recent connection…"));
    top->addRow(tr("&Recent:"), m_recentCombo);
    m_storeKind = new QComboBox(this);
    m_storeKind->setObjectName(QStringLiteral("storeKind"));
    m_storeKind->addItem(tr("SQLite file"));
    m_storeKind->addItem(tr("etcd cluster"));
    m_storeKind->addItem(tr("shardmapd (Admin API)"));
    top->addRow(tr("&Shard map store:"), m_storeKind);
    return top;
}

// One page per kind of store, the chosen kind's shown.
void ConnectDialog::addStorePages(QVBoxLayout* layout)
{
    m_storePages = new QStackedWidget(this);
    m_storePages->addWidget(createSqlitePage());
    m_storePages->addWidget(createEtcdPage());
    m_storePages->addWidget(createControllerPage());
    layout->addWidget(m_storePages);
    connect(m_storeKind, &QComboBox::currentIndexChanged, this, &ConnectDialog::showStorePage);
    showStorePage(SqlitePage);
}

QFormLayout* ConnectDialog::createIntervalForm()
{
    auto* intervalForm = new QFormLayout;
    m_metricsInterval = new QSpinBox(this);
    m_metricsInterval->setObjectName(QStringLiteral("metricsInterval"));
    m_metricsInterval->setRange(250, 60000);
    m_metricsInterval->setSingleStep(250);
    m_metricsInterval->setSuffix(tr(" ms"));
    m_metricsInterval->setValue(ConnectionSpec().metricsIntervalMs);
    intervalForm->addRow(tr("&Metrics interval:"), m_metricsInterval);
    return intervalForm;
}

// The profile: a name, the environment (shown in the title and status bar, production in red)
// and read-only (the store is opened read-only, every action is disabled).
QGroupBox* ConnectDialog::createProfileBox()
{
    auto* profile = new QGroupBox(tr("Profile"), this);
    auto* profileForm = new QFormLayout(profile);
    m_profileName = new QLineEdit(profile);
    m_profileName->setObjectName(QStringLiteral("profileName"));
    m_profileName->setPlaceholderText(tr("e.g. search-eu (optional)"));
    m_profileName->setAccessibleName(tr("Profile name"));
    profileForm->addRow(tr("&Name:"), m_profileName);
    m_environment = new QComboBox(profile);
    m_environment->setObjectName(QStringLiteral("environment"));
    m_environment->setEditable(true);
    m_environment->addItems({ QString(), QStringLiteral("production"), QStringLiteral("staging"),
        QStringLiteral("development"), QStringLiteral("test") });
    m_environment->setAccessibleName(tr("Environment"));
    profileForm->addRow(tr("&Environment:"), m_environment);
    m_readOnly = new QCheckBox(tr("&Read-only: look, never change"), profile);
    m_readOnly->setObjectName(QStringLiteral("readOnly"));
    m_readOnly->setAccessibleName(tr("Read-only connection"));
    profileForm->addRow(QString(), m_readOnly);
    return profile;
}

void ConnectDialog::addErrorAndButtons(QVBoxLayout* layout)
{
    m_error = new InlineMessage(this);
    m_error->setObjectName(QStringLiteral("errorLabel"));
    layout->addWidget(m_error);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->setObjectName(QStringLiteral("buttons"));
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Connect"));
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ConnectDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &ConnectDialog::reject);
    layout->addWidget(m_buttons);
}

QLineEdit* ConnectDialog::addFileRow(
    QFormLayout* form, const QString& label, const QString& name, const QString& filter)
{
    auto* row = new QWidget(this);
    auto* rowLayout = new QHBoxLayout(row);
    rowLayout->setContentsMargins(0, 0, 0, 0);
    auto* edit = new QLineEdit(row);
    edit->setObjectName(name);
    auto* browse = new QPushButton(tr("Browse…"), row);
    browse->setObjectName(name + QStringLiteral("Browse"));
    rowLayout->addWidget(edit, 1);
    rowLayout->addWidget(browse);
    form->addRow(label, row);
    connect(browse, &QPushButton::clicked, this, [this, edit, label, filter]() {
        const QString file
            = QFileDialog::getOpenFileName(this, QString(label).remove(QLatin1Char('&')).remove(QLatin1Char(':')),
                edit->text().isEmpty() ? inDocuments() : edit->text(), filter);
        if (!file.isEmpty()) {
            edit->setText(file);
        }
    });
    return edit;
}

QWidget* ConnectDialog::createSqlitePage()
{
    auto* page = new QWidget(this);
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_sqlitePath = addFileRow(form, tr("&File:"), QStringLiteral("sqlitePath"),
        tr("SQLite databases (*.db *.sqlite *.sqlite3);;All files (*)"));
    m_sqlitePath->setPlaceholderText(tr("The shard map's SQLite file"));
    return page;
}

QWidget* ConnectDialog::createEtcdPage()
{
    const QString pemFilter = tr("PEM files (*.pem *.crt *.key);;All files (*)");
    auto* page = new QWidget(this);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    m_endpoints = new QLineEdit(page);
    m_endpoints->setObjectName(QStringLiteral("etcdEndpoints"));
    m_endpoints->setPlaceholderText(tr("host:port, host:port, …"));
    form->addRow(tr("&Endpoints:"), m_endpoints);
    m_prefix = new QLineEdit(page);
    m_prefix->setObjectName(QStringLiteral("etcdPrefix"));
    m_prefix->setPlaceholderText(tr("Key prefix, e.g. shardmap"));
    form->addRow(tr("&Prefix:"), m_prefix);
    m_user = new QLineEdit(page);
    m_user->setObjectName(QStringLiteral("etcdUser"));
    form->addRow(tr("&User:"), m_user);
    m_password = new QLineEdit(page);
    m_password->setObjectName(QStringLiteral("etcdPassword"));
    m_password->setEchoMode(QLineEdit::Password);
    form->addRow(tr("Pass&word:"), m_password);
    m_passwordNote = new InlineMessage(this);
    m_passwordNote->setObjectName(QStringLiteral("passwordNote"));
    form->addRow(QString(), m_passwordNote);
    layout->addLayout(form);

    auto* tls = new QGroupBox(tr("etcd TLS"), page);
    auto* tlsForm = new QFormLayout(tls);
    m_etcdCa = addFileRow(tlsForm, tr("CA certificate:"), QStringLiteral("etcdCa"), pemFilter);
    m_etcdCert = addFileRow(tlsForm, tr("Client certificate:"), QStringLiteral("etcdCert"), pemFilter);
    m_etcdKey = addFileRow(tlsForm, tr("Client key:"), QStringLiteral("etcdKey"), pemFilter);
    layout->addWidget(tls);
    return page;
}

// Through shardmapd: what the console changes is checked against the identity's role there and
// audited under it; mutual TLS names the identity, or a bearer token does.
QWidget* ConnectDialog::createControllerPage()
{
    const QString pemFilter = tr("PEM files (*.pem *.crt *.key);;All files (*)");
    auto* page = new QWidget(this);
    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_controller = new QLineEdit(page);
    m_controller->setObjectName(QStringLiteral("controllerAddress"));
    m_controller->setPlaceholderText(tr("host:port of shardmapd"));
    form->addRow(tr("&Controller:"), m_controller);
    m_controllerCa = addFileRow(form, tr("CA certificate:"), QStringLiteral("controllerCa"), pemFilter);
    m_controllerCert = addFileRow(form, tr("Client certificate:"), QStringLiteral("controllerCert"), pemFilter);
    m_controllerKey = addFileRow(form, tr("Client key:"), QStringLiteral("controllerKey"), pemFilter);
    m_controllerToken = addFileRow(form, tr("Or token file:"), QStringLiteral("controllerToken"), tr("All files (*)"));
    return page;
}

// The stack is as tall as the page shown: sized by its largest page (etcd's), it left a gap
// under the one-line SQLite page.
void ConnectDialog::showStorePage(int index)
{
    for (int page = 0; page < m_storePages->count(); ++page) {
        const QSizePolicy::Policy policy = page == index ? QSizePolicy::Preferred : QSizePolicy::Ignored;
        m_storePages->widget(page)->setSizePolicy(policy, policy);
    }
    m_storePages->setCurrentIndex(index);
    m_storePages->adjustSize();
    adjustSize();
}

QGroupBox* ConnectDialog::createNodeTlsBox()
{
    const QString pemFilter = tr("PEM files (*.pem *.crt *.key);;All files (*)");
    auto* box = new QGroupBox(tr("Node TLS (optional)"), this);
    auto* form = new QFormLayout(box);
    m_nodeCa = addFileRow(form, tr("CA certificate:"), QStringLiteral("nodeCa"), pemFilter);
    m_nodeCert = addFileRow(form, tr("Client certificate:"), QStringLiteral("nodeCert"), pemFilter);
    m_nodeKey = addFileRow(form, tr("Client key:"), QStringLiteral("nodeKey"), pemFilter);
    return box;
}

void ConnectDialog::fillRecentCombo()
{
    m_recentCombo->clear();
    const QList<ConnectionSpec> specs = m_recent ? m_recent->list() : QList<ConnectionSpec>();
    for (const ConnectionSpec& spec : specs) {
        m_recentCombo->addItem(RecentConnections::displayName(spec));
    }
    m_recentCombo->setCurrentIndex(-1);
    m_recentCombo->setEnabled(!specs.isEmpty());
    connect(m_recentCombo, &QComboBox::activated, this, &ConnectDialog::applyRecent, Qt::UniqueConnection);
}

void ConnectDialog::applyRecent(int index)
{
    const QList<ConnectionSpec> specs = m_recent ? m_recent->list() : QList<ConnectionSpec>();
    if (index < 0 || index >= specs.size()) {
        return;
    }
    setSpec(specs.at(index));
    if (m_recent->hasSavedPassword(specs.at(index).key())) {
        loadSavedPassword(specs.at(index).key());
    }
}

void ConnectDialog::loadSavedPassword(const QString& key)
{
    m_recent->loadPassword(key, this, [this, key](const QString& password, const QString& error) {
        // The user may have picked another connection or typed a password meanwhile.
        if (spec().key() != key || !m_password->text().isEmpty()) {
            return;
        }
        m_password->setText(password);
        m_passwordNote->show(error, InlineMessage::Kind::Warning);
    });
}

ConnectionSpec ConnectDialog::spec() const
{
    ConnectionSpec result;
    if (m_storeKind->currentIndex() == SqlitePage) {
        const QString path = m_sqlitePath->text().trimmed();
        result.storeUri = path.isEmpty() ? QString() : kSqliteScheme + QFileInfo(path).absoluteFilePath();
    } else if (m_storeKind->currentIndex() == ControllerPage) {
        result.controllerAddress = m_controller->text().trimmed();
        result.controllerCaFile = m_controllerCa->text().trimmed();
        result.controllerCertFile = m_controllerCert->text().trimmed();
        result.controllerKeyFile = m_controllerKey->text().trimmed();
        result.controllerTokenFile = m_controllerToken->text().trimmed();
    } else {
        result.storeUri = etcdStoreUri();
        result.password = m_password->text();
    }
    result.nodeCaFile = m_nodeCa->text().trimmed();
    result.nodeCertFile = m_nodeCert->text().trimmed();
    result.nodeKeyFile = m_nodeKey->text().trimmed();
    result.metricsIntervalMs = m_metricsInterval->value();
    result.profileName = m_profileName->text().trimmed();
    result.environment = m_environment->currentText().trimmed();
    result.colour = m_colour;
    result.readOnly = m_readOnly->isChecked();
    return result;
}

QString ConnectDialog::etcdStoreUri() const
{
    QStringList query;
    const auto addOption = [&query](const char* name, const QString& value) {
        if (!value.trimmed().isEmpty()) {
            query << QLatin1String(name) + QLatin1Char('=') + encoded(value.trimmed());
        }
    };
    addOption("user", m_user->text());
    addOption("ca", m_etcdCa->text());
    addOption("cert", m_etcdCert->text());
    addOption("key", m_etcdKey->text());
    QString uri = kEtcdScheme + endpointList(m_endpoints->text()).join(QLatin1Char(',')) + QLatin1Char('/')
        + trimmedPrefix(m_prefix->text());
    if (!query.isEmpty()) {
        uri += QLatin1Char('?') + query.join(QLatin1Char('&'));
    }
    return uri;
}

void ConnectDialog::setSpec(const ConnectionSpec& spec)
{
    QString password = spec.password;
    const QString uri = stripPassword(spec.storeUri, password.isEmpty() ? &password : nullptr);
    m_controller->setText(spec.controllerAddress);
    m_controllerCa->setText(spec.controllerCaFile);
    m_controllerCert->setText(spec.controllerCertFile);
    m_controllerKey->setText(spec.controllerKeyFile);
    m_controllerToken->setText(spec.controllerTokenFile);
    if (spec.viaController()) {
        m_storeKind->setCurrentIndex(ControllerPage);
        m_password->clear();
    } else if (uri.startsWith(kEtcdScheme)) {
        m_storeKind->setCurrentIndex(EtcdPage);
        setEtcdUri(uri);
        m_password->setText(password);
    } else {
        m_storeKind->setCurrentIndex(SqlitePage);
        QString path = uri.startsWith(kSqliteScheme) ? uri.mid(kSqliteScheme.size()) : uri;
        if (path.startsWith(QLatin1String("//"))) {
            path.remove(0, 2); // "sqlite://PATH", which core accepts too
        }
        m_sqlitePath->setText(path);
        m_password->clear();
    }
    m_nodeCa->setText(spec.nodeCaFile);
    m_nodeCert->setText(spec.nodeCertFile);
    m_nodeKey->setText(spec.nodeKeyFile);
    m_metricsInterval->setValue(spec.metricsIntervalMs);
    m_profileName->setText(spec.profileName);
    m_environment->setCurrentText(spec.environment);
    m_colour = spec.colour;
    m_readOnly->setChecked(spec.readOnly);
    m_passwordNote->clear();
    showError({});
}

void ConnectDialog::setEtcdUri(const QString& uri)
{
    const QString rest = uri.mid(kEtcdScheme.size());
    const QString location = rest.section(QLatin1Char('?'), 0, 0);
    m_endpoints->setText(location.section(QLatin1Char('/'), 0, 0).split(QLatin1Char(',')).join(QStringLiteral(", ")));
    m_prefix->setText(location.section(QLatin1Char('/'), 1));
    for (QLineEdit* edit : { m_user, m_etcdCa, m_etcdCert, m_etcdKey }) {
        edit->clear();
    }
    const QStringList items = rest.section(QLatin1Char('?'), 1).split(QLatin1Char('&'), Qt::SkipEmptyParts);
    for (const QString& item : items) {
        const QString name = item.section(QLatin1Char('='), 0, 0);
        const QString value = QUrl::fromPercentEncoding(item.section(QLatin1Char('='), 1).toUtf8());
        if (name == QLatin1String("user")) {
            m_user->setText(value);
        } else if (name == QLatin1String("ca")) {
            m_etcdCa->setText(value);
        } else if (name == QLatin1String("cert")) {
            m_etcdCert->setText(value);
        } else if (name == QLatin1String("key")) {
            m_etcdKey->setText(value);
        }
    }
}

QString ConnectDialog::validationError() const
{
    return firstProblem().message;
}

ConnectDialog::Problem ConnectDialog::firstProblem() const
{
    if (m_storeKind->currentIndex() == SqlitePage) {
        if (m_sqlitePath->text().trimmed().isEmpty()) {
            return { tr("Choose the SQLite file of the shard map."), m_sqlitePath };
        }
    } else if (m_storeKind->currentIndex() == ControllerPage) {
        if (Problem problem = controllerProblem(); problem.field) {
            return problem;
        }
    } else if (Problem problem = etcdProblem(); problem.field) {
        return problem;
    }
    if (!m_nodeCert->text().trimmed().isEmpty() && m_nodeKey->text().trimmed().isEmpty()) {
        return { tr("The node client certificate needs its key file."), m_nodeKey };
    }
    if (m_nodeCert->text().trimmed().isEmpty() && !m_nodeKey->text().trimmed().isEmpty()) {
        return { tr("The node key file needs its client certificate."), m_nodeCert };
    }
    return {};
}

ConnectDialog::Problem ConnectDialog::etcdProblem() const
{
    const QStringList endpoints = endpointList(m_endpoints->text());
    if (endpoints.isEmpty()) {
        return { tr("Enter at least one etcd endpoint as host:port."), m_endpoints };
    }
    for (const QString& endpoint : endpoints) {
        if (!isHostPort(endpoint)) {
            return { tr("“%1” is not an endpoint of the form host:port.").arg(endpoint), m_endpoints };
        }
    }
    if (trimmedPrefix(m_prefix->text()).isEmpty()) {
        return { tr("Enter the key prefix of the shard map in etcd."), m_prefix };
    }
    if (!m_password->text().isEmpty() && m_user->text().trimmed().isEmpty()) {
        return { tr("A password needs a user name."), m_user };
    }
    if (!m_etcdCert->text().trimmed().isEmpty() && m_etcdKey->text().trimmed().isEmpty()) {
        return { tr("The etcd client certificate needs its key file."), m_etcdKey };
    }
    if (m_etcdCert->text().trimmed().isEmpty() && !m_etcdKey->text().trimmed().isEmpty()) {
        return { tr("The etcd key file needs its client certificate."), m_etcdCert };
    }
    return {};
}

ConnectDialog::Problem ConnectDialog::controllerProblem() const
{
    const QString address = m_controller->text().trimmed();
    if (!isHostPort(address)) {
        return { tr("Enter shardmapd's address as host:port."), m_controller };
    }
    const bool cert = !m_controllerCert->text().trimmed().isEmpty();
    const bool key = !m_controllerKey->text().trimmed().isEmpty();
    if (cert != key) {
        return { cert ? tr("The controller client certificate needs its key file.")
                      : tr("The controller key file needs its client certificate."),
            cert ? m_controllerKey : m_controllerCert };
    }
    if (cert && !m_controllerToken->text().trimmed().isEmpty()) {
        return { tr("Choose a client certificate or a token file, not both."), m_controllerToken };
    }
    return {};
}

void ConnectDialog::showError(const Problem& problem)
{
    m_error->show(problem.message, InlineMessage::Kind::Error);
    if (problem.field) {
        problem.field->setFocus();
    }
}

void ConnectDialog::accept()
{
    if (!m_pendingKey.isEmpty()) {
        return; // still waiting for the keyring
    }
    const Problem problem = firstProblem();
    showError(problem);
    if (!problem.message.isEmpty()) {
        return;
    }
    const ConnectionSpec current = spec();
    if (!m_recent || current == m_unsavedPasswordSpec) {
        // Already remembered; the user read that the password was not saved.
        QDialog::accept();
        return;
    }
    m_recent->remember(current);
    if (current.password.isEmpty()) {
        QDialog::accept();
        return;
    }
    m_pendingKey = current.key();
    setWaitingForKeyring(true);
}

void ConnectDialog::setWaitingForKeyring(bool waiting)
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!waiting);
    if (waiting) {
        m_passwordNote->show(tr("Saving the password in the system keyring…"), InlineMessage::Kind::Info);
    }
}

void ConnectDialog::onPasswordSaved(const QString& key)
{
    if (key != m_pendingKey) {
        return;
    }
    m_pendingKey.clear();
    setWaitingForKeyring(false);
    m_passwordNote->clear();
    QDialog::accept();
}

void ConnectDialog::onPasswordNotSaved(const QString& key, const QString& message)
{
    if (key != m_pendingKey) {
        return;
    }
    m_pendingKey.clear();
    setWaitingForKeyring(false);
    m_unsavedPasswordSpec = spec();
    m_passwordNote->show(message + QLatin1Char(' ') + tr("Press Connect again to connect without saving it."),
        InlineMessage::Kind::Warning);
}

} // namespace shardmap::widgets
