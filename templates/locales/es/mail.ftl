# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## Every notification

mail-headline-opened = Nuevo incidente
mail-headline-resolved = Resuelto
mail-headline-postmortem = Análisis posterior publicado
mail-headline-maintenance-scheduled = Mantenimiento programado
mail-headline-maintenance-soon = El mantenimiento comenzará pronto
mail-headline-maintenance-started = Mantenimiento iniciado
mail-headline-maintenance-completed = Mantenimiento completado
mail-headline-update = Actualización
mail-headline-component = Cambio de estado de un componente
mail-status = Estado: { $status }
mail-window = Ventana de mantenimiento: { $window }
mail-affected = Componentes afectados
mail-next-update = Próxima actualización antes del { $time }.
mail-details = Ver los detalles en la página de estado
mail-details-text = Detalles: { $url }
mail-why = Recibe este mensaje porque se suscribió a las actualizaciones de estado de { $name }.
mail-manage = Gestionar o cancelar su suscripción
mail-component-now = El estado de { $component } es ahora: { $status }.
mail-component-vendor = El estado de { $component } es ahora: { $status }, según informa { $vendor } en su propia página de estado.

## Confirming a subscription

mail-confirm-subject = Confirme su suscripción a las actualizaciones de estado de { $name }
mail-confirm-asked = Alguien, probablemente usted, ha solicitado recibir en esta dirección las actualizaciones de estado de { $name }.
mail-confirm-button = Confirmar mi suscripción
mail-confirm-open = Para confirmarla, abra este enlace (válido durante 48 horas):
mail-confirm-valid = El enlace es válido durante 48 horas. Si no ha sido usted quien lo ha solicitado, ignore este mensaje: no se le enviará nada más.
mail-confirm-ignore = Si no ha sido usted quien lo ha solicitado, ignore este mensaje: no se le enviará nada más.

## A subscription moved from another status page

mail-moved-subject = Las actualizaciones de estado de { $name } se han trasladado: confirme para seguir recibiéndolas
mail-moved-title = Confirme para seguir recibiendo las actualizaciones de estado
mail-moved-intro = Se suscribió a las actualizaciones de estado de { $name } en su anterior página de estado. Ahora { $name } las publica aquí:
mail-moved-button = Mantener mi suscripción
mail-moved-open = Para seguir recibiéndolas en esta dirección, confirme con este enlace (válido durante 48 horas):
mail-moved-valid = El enlace es válido durante 48 horas. Si no confirma, no se le enviará nada más desde esta página.
mail-moved-ignore = Si no confirma, no se le enviará nada más desde esta página.

## A webhook paused after failures

mail-paused-subject = [{ $name }] Notificaciones por webhook en pausa tras fallos repetidos
mail-paused-title = Notificaciones por webhook en pausa
mail-paused-failed = Herald no pudo entregar las notificaciones de estado de { $name } a su webhook { $url } tras { $failures } intentos fallidos consecutivos.
mail-paused-fix = Las notificaciones a este webhook están en pausa. Corrija el problema en el receptor y, después, vuelva a suscribirlo desde la página de estado: { $page }
mail-paused-manage = Gestionar o cancelar la suscripción

## The sign-in link a reader of a private page asked for

mail-reader-subject = Inicie sesión en { $name }
mail-reader-hello = Hola:
mail-reader-intro = Aquí tiene su enlace para ver la página de estado { $name }:
mail-reader-button = Ver { $name }
mail-reader-once = El enlace solo se puede usar una vez, durante { $minutes } minutos. Al abrirlo, se le pedirá que confirme antes de iniciar sesión, para que un analizador de correo que abra los enlaces no pueda consumirlo.
mail-reader-why = Recibe este mensaje porque alguien ha solicitado un enlace de inicio de sesión para { $email } en { $name }. Si no ha sido usted, ignore este mensaje: sin el enlace no ocurre nada.

## The copy a sender of the support form asked for

mail-copy-subject = [{ $name }] Hemos recibido su solicitud { $reference }
mail-copy-hello = Hola:
mail-copy-received = Hemos recibido su solicitud de soporte. Su referencia es { $reference }.
mail-copy-next = Próximos pasos: nuestro equipo de soporte lee cada solicitud y responde a esta dirección. Si vuelve a escribirnos sobre este asunto, indique { $reference }.
mail-copy-status = Mientras algo no funcione, la página de estado muestra lo que sabemos:
mail-copy-topic = Tema: { $topic }
mail-copy-affected = Parte del servicio afectada: { $component }
mail-copy-no-text = Esta copia no repite lo que se escribió en el formulario: cualquiera puede escribir cualquier dirección en un formulario de contacto, y una copia no debe hacer llegar ese texto a otra persona.
mail-copy-why = Recibe esta copia porque la solicitó en el formulario de contacto de { $name }. Si no ha sido usted, ignore este mensaje: no se le enviará nada más.
