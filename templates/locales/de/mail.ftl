# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## Every notification

mail-headline-opened = Neue Störung
mail-headline-resolved = Behoben
mail-headline-postmortem = Post-Mortem veröffentlicht
mail-headline-maintenance-scheduled = Wartung geplant
mail-headline-maintenance-soon = Wartung beginnt in Kürze
mail-headline-maintenance-started = Wartung begonnen
mail-headline-maintenance-completed = Wartung abgeschlossen
mail-headline-update = Update
mail-headline-component = Komponentenstatus geändert
mail-status = Status: { $status }
mail-window = Wartungsfenster: { $window }
mail-affected = Betroffene Komponenten
mail-next-update = Nächstes Update bis { $time }.
mail-details = Details auf der Statusseite ansehen
mail-details-text = Details: { $url }
mail-why = Sie erhalten diese Nachricht, weil Sie die Status-Updates von { $name } abonniert haben.
mail-manage = Abonnement verwalten oder kündigen
mail-component-now = Der Status von { $component } lautet jetzt: { $status }.
mail-component-vendor = Laut der eigenen Statusseite von { $vendor } lautet der Status von { $component } jetzt: { $status }.

## Confirming a subscription

mail-confirm-subject = Bestätigen Sie Ihr Abonnement der Status-Updates von { $name }
mail-confirm-asked = Jemand, vermutlich Sie selbst, hat angefordert, die Status-Updates von { $name } an diese Adresse zu erhalten.
mail-confirm-button = Abonnement bestätigen
mail-confirm-open = Öffnen Sie zur Bestätigung diesen Link (48 Stunden lang gültig):
mail-confirm-valid = Der Link ist 48 Stunden lang gültig. Wenn Sie dies nicht angefordert haben, ignorieren Sie diese Nachricht: Sie erhalten dann keine weiteren Nachrichten.
mail-confirm-ignore = Wenn Sie dies nicht angefordert haben, ignorieren Sie diese Nachricht: Sie erhalten dann keine weiteren Nachrichten.

## A subscription moved from another status page

mail-moved-subject = Die Status-Updates von { $name } sind umgezogen: Bestätigen Sie, um sie weiterhin zu erhalten
mail-moved-title = Bestätigen Sie, um weiterhin Status-Updates zu erhalten
mail-moved-intro = Sie haben die Status-Updates von { $name } auf der bisherigen Statusseite abonniert. { $name } veröffentlicht sie jetzt hier:
mail-moved-button = Abonnement beibehalten
mail-moved-open = Um sie weiterhin an diese Adresse zu erhalten, bestätigen Sie über diesen Link (48 Stunden lang gültig):
mail-moved-valid = Der Link ist 48 Stunden lang gültig. Wenn Sie nicht bestätigen, erhalten Sie von dieser Seite keine weiteren Nachrichten.
mail-moved-ignore = Wenn Sie nicht bestätigen, erhalten Sie von dieser Seite keine weiteren Nachrichten.

## A webhook paused after failures

mail-paused-subject = [{ $name }] Webhook-Benachrichtigungen nach wiederholten Fehlern pausiert
mail-paused-title = Webhook-Benachrichtigungen pausiert
mail-paused-failed = Herald konnte die Statusbenachrichtigungen von { $name } nach { $failures } aufeinanderfolgenden fehlgeschlagenen Versuchen nicht an Ihren Webhook { $url } zustellen.
mail-paused-fix = Die Benachrichtigungen an diesen Webhook sind pausiert. Beheben Sie das Problem beim Empfänger und abonnieren Sie den Webhook anschließend erneut über die Statusseite: { $page }
mail-paused-manage = Abonnement verwalten oder kündigen

## The sign-in link a reader of a private page asked for

mail-reader-subject = Bei { $name } anmelden
mail-reader-hello = Guten Tag,
mail-reader-intro = hier ist Ihr Link, mit dem Sie die Statusseite { $name } lesen können:
mail-reader-button = { $name } anzeigen
mail-reader-once = Der Link kann einmal verwendet werden und ist { $minutes } Minuten lang gültig. Beim Öffnen werden Sie vor der Anmeldung um eine Bestätigung gebeten, damit ein E-Mail-Scanner, der Links öffnet, ihn nicht verbrauchen kann.
mail-reader-why = Sie erhalten diese Nachricht, weil jemand auf { $name } einen Anmeldelink für { $email } angefordert hat. Wenn Sie das nicht waren, ignorieren Sie diese Nachricht: Ohne den Link geschieht nichts.

## The copy a sender of the support form asked for

mail-copy-subject = [{ $name }] Wir haben Ihre Anfrage { $reference } erhalten
mail-copy-hello = Guten Tag,
mail-copy-received = wir haben Ihre Support-Anfrage erhalten. Ihre Referenz lautet { $reference }.
mail-copy-next = So geht es weiter: Jede Anfrage wird von unserem Support-Team gelesen und an diese Adresse beantwortet. Wenn Sie uns dazu erneut schreiben, geben Sie bitte { $reference } an.
mail-copy-status = Solange etwas ausgefallen ist, zeigt die Statusseite, was wir wissen:
mail-copy-topic = Thema: { $topic }
mail-copy-affected = Betroffen: { $component }
mail-copy-no-text = Diese Kopie enthält nicht, was im Formular geschrieben wurde: Jeder kann in ein Kontaktformular eine beliebige Adresse eingeben, und eine Kopie darf den Text nicht an jemand anderen weitergeben.
mail-copy-why = Sie erhalten diese Kopie, weil Sie sie im Kontaktformular von { $name } angefordert haben. Wenn Sie das nicht waren, ignorieren Sie diese Nachricht: Sie erhalten keine weiteren Nachrichten.
