#include "i18n/ui_language.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QQmlEngine>

namespace kvchat::app {

UiLanguage::UiLanguage(Save save, QLocale system, QObject* parent)
    : QObject(parent), save_(std::move(save)), system_(std::move(system)) {}

UiLanguage::~UiLanguage() {
  if (app_translator_) QCoreApplication::removeTranslator(app_translator_.get());
  if (qt_translator_) QCoreApplication::removeTranslator(qt_translator_.get());
}

QString UiLanguage::resolve(const QString& choice, const QLocale& system) {
  if (choice == QStringLiteral("ko") || choice == QStringLiteral("en")) return choice;
  return system.language() == QLocale::Korean ? QStringLiteral("ko") : QStringLiteral("en");
}

void UiLanguage::apply(const QString& choice) {
  choice_ = choices().contains(choice) ? choice : QStringLiteral("system");
  active_ = resolve(choice_, system_);
  for (auto* t : {app_translator_.get(), qt_translator_.get()}) {
    if (t) QCoreApplication::removeTranslator(t);
  }
  app_translator_.reset();
  qt_translator_.reset();
  QLocale locale;
  if (active_ == QStringLiteral("ko")) {
    locale = QLocale(QLocale::Korean, QLocale::SouthKorea);
    app_translator_ = std::make_unique<QTranslator>();
    if (app_translator_->load(QStringLiteral(":/i18n/kvchat_ko.qm"))) {
      QCoreApplication::installTranslator(app_translator_.get());
    } else {
      app_translator_.reset();
    }
    // Qt's own strings (standard dialogs), where Debian's qt6-translations-l10n is installed.
    qt_translator_ = std::make_unique<QTranslator>();
    if (qt_translator_->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                             QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
      QCoreApplication::installTranslator(qt_translator_.get());
    } else {
      qt_translator_.reset();
    }
  } else {
    // English words; numbers as the system writes them, unless it is the bare C locale.
    locale = system_.language() == QLocale::English
                 ? system_
                 : QLocale(QLocale::English, QLocale::UnitedStates);
  }
  QLocale::setDefault(locale);
  if (engine_) engine_->retranslate();
  emit changed();
}

void UiLanguage::choose(const QString& choice) {
  apply(choice);
  if (save_) save_(choice_);
}

}  // namespace kvchat::app
