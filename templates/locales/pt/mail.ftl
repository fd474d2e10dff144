# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## Todas as notificações

mail-headline-opened = Novo incidente
mail-headline-resolved = Resolvido
mail-headline-postmortem = Análise pós-incidente publicada
mail-headline-maintenance-scheduled = Manutenção agendada
mail-headline-maintenance-soon = Manutenção prestes a começar
mail-headline-maintenance-started = Manutenção iniciada
mail-headline-maintenance-completed = Manutenção concluída
mail-headline-update = Atualização
mail-headline-component = Status de componente alterado
mail-status = Status: { $status }
mail-window = Janela de manutenção: { $window }
mail-affected = Componentes afetados
mail-next-update = Próxima atualização até { $time }.
mail-details = Ver os detalhes na página de status
mail-details-text = Detalhes: { $url }
mail-why = Você está recebendo esta mensagem porque se inscreveu para receber as atualizações de status de { $name }.
mail-manage = Gerenciar ou cancelar sua inscrição
mail-component-now = O status de { $component } agora é: { $status }.
mail-component-vendor = O status de { $component } agora é: { $status }, conforme informado por { $vendor } na própria página de status.

## Confirmação de inscrição

mail-confirm-subject = Confirme sua inscrição nas atualizações de status de { $name }
mail-confirm-asked = Alguém, provavelmente você, pediu para receber as atualizações de status de { $name } neste endereço.
mail-confirm-button = Confirmar minha inscrição
mail-confirm-open = Para confirmar, abra este link (válido por 48 horas):
mail-confirm-valid = O link é válido por 48 horas. Se não foi você que fez essa solicitação, ignore esta mensagem: nada mais será enviado.
mail-confirm-ignore = Se não foi você que fez essa solicitação, ignore esta mensagem: nada mais será enviado.

## Uma inscrição transferida de outra página de status

mail-moved-subject = As atualizações de status de { $name } mudaram de endereço: confirme para continuar recebendo
mail-moved-title = Confirme para continuar recebendo as atualizações de status
mail-moved-intro = Você se inscreveu nas atualizações de status de { $name } na página de status anterior. Agora { $name } as publica aqui:
mail-moved-button = Manter minha inscrição
mail-moved-open = Para continuar recebendo as atualizações neste endereço, confirme por este link (válido por 48 horas):
mail-moved-valid = O link é válido por 48 horas. Se você não confirmar, nada mais será enviado a você por esta página.
mail-moved-ignore = Se você não confirmar, nada mais será enviado a você por esta página.

## Um webhook pausado após falhas

mail-paused-subject = [{ $name }] Notificações por webhook pausadas após falhas repetidas
mail-paused-title = Notificações por webhook pausadas
mail-paused-failed = O Herald não conseguiu entregar as notificações de status de { $name } ao seu webhook { $url } após { $failures } tentativas consecutivas com falha.
mail-paused-fix = As notificações para esse webhook estão pausadas. Corrija o problema no receptor e inscreva o webhook novamente pela página de status: { $page }
mail-paused-manage = Gerenciar ou cancelar a inscrição

## The sign-in link a reader of a private page asked for

mail-reader-subject = Entre em { $name }
mail-reader-hello = Olá,
mail-reader-intro = Aqui está seu link para ver a página de status { $name }:
mail-reader-button = Ver { $name }
mail-reader-once = O link pode ser usado uma única vez e vale por { $minutes } minutos. Ao abri-lo, você precisará confirmar antes de entrar, para que um verificador de e-mails que abra links não consiga usá-lo antes de você.
mail-reader-why = Você está recebendo esta mensagem porque alguém pediu um link de acesso para { $email } em { $name }. Se não foi você, ignore esta mensagem: nada acontece sem o link.

## A cópia pedida por quem enviou o formulário de suporte

mail-copy-subject = [{ $name }] Recebemos sua solicitação { $reference }
mail-copy-hello = Olá,
mail-copy-received = Recebemos sua solicitação de suporte. O número de referência é { $reference }.
mail-copy-next = Próximos passos: nossa equipe de suporte lê todas as solicitações e responde para este endereço. Se você nos escrever novamente sobre esse assunto, informe { $reference }.
mail-copy-status = Enquanto algo estiver fora do ar, a página de status mostra o que sabemos:
mail-copy-topic = Assunto: { $topic }
mail-copy-affected = Parte do serviço afetada: { $component }
mail-copy-no-text = Esta cópia não repete o que foi escrito no formulário: qualquer pessoa pode digitar qualquer endereço em um formulário de contato, e uma cópia não pode levar esse texto para outra pessoa.
mail-copy-why = Você está recebendo esta cópia porque pediu uma no formulário de contato de { $name }. Se não foi você, ignore esta mensagem: nada mais será enviado.
