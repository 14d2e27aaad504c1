// UiLanguage: which language a choice resolves to, the locale it sets for numbers, and that
// a choice is saved.
#include <QLocale>
#include <QtTest>

#include "i18n/ui_language.h"

using kvchat::app::UiLanguage;

class TestUiLanguage : public QObject {
  Q_OBJECT
 private slots:
  void systemFollowsTheLocale() {
    QCOMPARE(UiLanguage::resolve("system", QLocale(QLocale::Korean, QLocale::SouthKorea)),
             QString("ko"));
    QCOMPARE(UiLanguage::resolve("system", QLocale(QLocale::English, QLocale::UnitedKingdom)),
             QString("en"));
    QCOMPARE(UiLanguage::resolve("system", QLocale::c()), QString("en"));
    QCOMPARE(UiLanguage::resolve("system", QLocale(QLocale::German, QLocale::Germany)),
             QString("en"));
  }
  void aChoiceBeatsTheLocale() {
    QCOMPARE(UiLanguage::resolve("en", QLocale(QLocale::Korean, QLocale::SouthKorea)),
             QString("en"));
    QCOMPARE(UiLanguage::resolve("ko", QLocale::c()), QString("ko"));
  }
  void applySetsTheNumberLocaleAndChooseSaves() {
    QString saved;
    UiLanguage language([&](const QString& c) { saved = c; }, QLocale::c());
    language.apply("system");
    QCOMPARE(language.active(), QString("en"));
    QCOMPARE(QLocale().name(), QString("en_US"));  // the bare C locale reads as US English
    QCOMPARE(QLocale().toString(1234567.5, 'f', 1), QString("1,234,567.5"));
    QVERIFY(saved.isEmpty());  // apply does not save
    language.choose("ko");
    QCOMPARE(saved, QString("ko"));
    QCOMPARE(language.choice(), QString("ko"));
    QCOMPARE(QLocale().name(), QString("ko_KR"));
    language.choose("nonsense");
    QCOMPARE(language.choice(), QString("system"));
    QCOMPARE(saved, QString("system"));
  }
};

QTEST_GUILESS_MAIN(TestUiLanguage)
#include "test_ui_language.moc"
