// UiLanguage: the language the window speaks, English or Korean. It follows the system
// locale (LC_ALL / LC_MESSAGES / LANG) unless Settings chooses one; a choice is saved and
// applied at once (the QML engine retranslates the live window). Numbers and byte sizes
// follow the same locale (QLocale's default: Qt.locale() in QML).
#pragma once

#include <QLocale>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTranslator>
#include <functional>
#include <memory>

class QQmlEngine;

namespace kvchat::app {

class UiLanguage : public QObject {
  Q_OBJECT
  Q_PROPERTY(QString choice READ choice NOTIFY changed)  // "system", "en" or "ko"
  Q_PROPERTY(QString active READ active NOTIFY changed)  // the language in use: "en" or "ko"
  Q_PROPERTY(QStringList choices READ choices CONSTANT)

 public:
  using Save = std::function<void(const QString& choice)>;
  // `save` keeps a choice (the app's settings); `system` is the locale to follow.
  explicit UiLanguage(Save save, QLocale system = QLocale::system(), QObject* parent = nullptr);
  ~UiLanguage() override;

  // Applies `choice` ("system", "en", "ko"; anything else counts as "system") without saving.
  void apply(const QString& choice);
  // Set once the window's engine exists: later choices retranslate it.
  void set_engine(QQmlEngine* engine) { engine_ = engine; }

  Q_INVOKABLE void choose(const QString& choice);  // apply + save
  QString choice() const { return choice_; }
  QString active() const { return active_; }
  QStringList choices() const {
    return {QStringLiteral("system"), QStringLiteral("en"), QStringLiteral("ko")};
  }

  // The language a choice resolves to for this system locale: "ko" or "en".
  static QString resolve(const QString& choice, const QLocale& system);

 signals:
  void changed();

 private:
  Save save_;
  QLocale system_;
  QQmlEngine* engine_ = nullptr;
  std::unique_ptr<QTranslator> app_translator_, qt_translator_;
  QString choice_ = QStringLiteral("system"), active_ = QStringLiteral("en");
};

}  // namespace kvchat::app
