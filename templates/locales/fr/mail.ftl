# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## Every notification

mail-headline-opened = Nouvel incident
mail-headline-resolved = Résolu
mail-headline-postmortem = Post-mortem publié
mail-headline-maintenance-scheduled = Maintenance planifiée
mail-headline-maintenance-soon = Maintenance imminente
mail-headline-maintenance-started = Début de la maintenance
mail-headline-maintenance-completed = Maintenance terminée
mail-headline-update = Mise à jour
mail-headline-component = Changement de statut d’un composant
mail-status = Statut : { $status }
mail-window = Fenêtre de maintenance : { $window }
mail-affected = Composants concernés
mail-next-update = Prochaine mise à jour d’ici le { $time }.
mail-details = Voir les détails sur la page de statut
mail-details-text = Détails : { $url }
mail-why = Vous recevez ce message, car vous êtes abonné aux mises à jour de statut de { $name }.
mail-manage = Gérer ou résilier votre abonnement
mail-component-now = Le statut de { $component } est désormais : { $status }.
mail-component-vendor = Le statut de { $component } est désormais : { $status }, d’après la propre page de statut de { $vendor }.

## Confirming a subscription

mail-confirm-subject = Confirmez votre abonnement aux mises à jour de statut de { $name }
mail-confirm-asked = Quelqu’un, probablement vous, a demandé à recevoir les mises à jour de statut de { $name } à cette adresse.
mail-confirm-button = Confirmer mon abonnement
mail-confirm-open = Pour confirmer, ouvrez ce lien (valable 48 heures) :
mail-confirm-valid = Le lien est valable 48 heures. Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : vous ne recevrez rien d’autre.
mail-confirm-ignore = Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : vous ne recevrez rien d’autre.

## A subscription moved from another status page

mail-moved-subject = Les mises à jour de statut de { $name } changent d’adresse : confirmez pour continuer à les recevoir
mail-moved-title = Confirmez pour continuer à recevoir les mises à jour de statut
mail-moved-intro = Vous vous êtes abonné aux mises à jour de statut de { $name } sur son ancienne page de statut. { $name } les publie désormais ici :
mail-moved-button = Conserver mon abonnement
mail-moved-open = Pour continuer à les recevoir à cette adresse, confirmez avec ce lien (valable 48 heures) :
mail-moved-valid = Le lien est valable 48 heures. Sans confirmation de votre part, vous ne recevrez plus rien de cette page.
mail-moved-ignore = Sans confirmation de votre part, vous ne recevrez plus rien de cette page.

## A webhook paused after failures

mail-paused-subject = [{ $name }] Notifications webhook suspendues après des échecs répétés
mail-paused-title = Notifications webhook suspendues
mail-paused-failed = Herald n’a pas pu remettre les notifications de statut de { $name } à votre webhook { $url } après { $failures } tentatives consécutives infructueuses.
mail-paused-fix = Les notifications vers ce webhook sont suspendues. Corrigez le problème du côté du récepteur, puis abonnez de nouveau le webhook depuis la page de statut : { $page }
mail-paused-manage = Gérer ou résilier l’abonnement

## The sign-in link a reader of a private page asked for

mail-reader-subject = Connectez-vous à { $name }
mail-reader-hello = Bonjour,
mail-reader-intro = Voici votre lien pour consulter la page de statut { $name } :
mail-reader-button = Consulter { $name }
mail-reader-once = Ce lien est utilisable une seule fois, pendant { $minutes } minutes. À son ouverture, une confirmation vous est demandée avant la connexion, afin qu’un logiciel d’analyse des e-mails qui ouvre les liens ne puisse pas le consommer avant vous.
mail-reader-why = Vous recevez ce message, car quelqu’un a demandé un lien de connexion pour l’adresse { $email } sur { $name }. Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : rien ne se passe sans le lien.

## The copy a sender of the support form asked for

mail-copy-subject = [{ $name }] Nous avons bien reçu votre demande { $reference }
mail-copy-hello = Bonjour,
mail-copy-received = Nous avons bien reçu votre demande d’assistance. Sa référence est { $reference }.
mail-copy-next = Et ensuite ? Notre équipe d’assistance lit chaque demande et vous répond à cette adresse. Si vous nous écrivez à nouveau à ce sujet, indiquez la référence { $reference }.
mail-copy-status = Tant que quelque chose est en panne, la page de statut indique ce que nous savons :
mail-copy-topic = Sujet : { $topic }
mail-copy-affected = Partie du service concernée : { $component }
mail-copy-no-text = Cette copie ne reprend pas ce qui a été saisi dans le formulaire : n’importe qui peut indiquer n’importe quelle adresse dans un formulaire de contact, et une copie ne doit pas transmettre ce texte à quelqu’un d’autre.
mail-copy-why = Vous recevez cette copie, car vous l’avez demandée sur le formulaire de contact de { $name }. Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : vous ne recevrez rien d’autre.
