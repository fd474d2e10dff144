# Herald's words in the mails subscribers and readers receive. Mail clients show plain text
# or simple HTML: no markup here either; { $name } values are inserted as they are.

## すべての通知

mail-headline-opened = 新しいインシデント
mail-headline-resolved = 解決済み
mail-headline-postmortem = 事後分析の公開
mail-headline-maintenance-scheduled = メンテナンスの予定
mail-headline-maintenance-soon = まもなくメンテナンス開始
mail-headline-maintenance-started = メンテナンス開始
mail-headline-maintenance-completed = メンテナンス完了
mail-headline-update = 更新情報
mail-headline-component = コンポーネントのステータス変更
mail-status = ステータス：{ $status }
mail-window = メンテナンス期間：{ $window }
mail-affected = 影響を受けるコンポーネント
mail-next-update = 次回の更新は { $time } までに行う予定です。
mail-details = ステータスページで詳細を見る
mail-details-text = 詳細：{ $url }
mail-why = このメールは、{ $name } のステータス更新情報を購読されている方にお送りしています。
mail-manage = 購読の管理・解除
mail-component-now = { $component } のステータスが「{ $status }」になりました。
mail-component-vendor = { $vendor } のステータスページによると、{ $component } のステータスが「{ $status }」になりました。

## 購読の確認

mail-confirm-subject = { $name } のステータス更新情報の購読を確認してください
mail-confirm-asked = どなたか（おそらくご本人）が、このメールアドレスで { $name } のステータス更新情報を受け取るよう申し込まれました。
mail-confirm-button = 購読を確認する
mail-confirm-open = 購読を確認するには、次のリンクを開いてください（有効期限は 48 時間です）：
mail-confirm-valid = このリンクの有効期限は 48 時間です。お心当たりがない場合は、このメールを無視してください。今後メールが送信されることはありません。
mail-confirm-ignore = お心当たりがない場合は、このメールを無視してください。今後メールが送信されることはありません。

## 別のステータスページから移行された購読

mail-moved-subject = { $name } のステータス更新情報の掲載先が変わりました：引き続き受け取るには確認が必要です
mail-moved-title = ステータス更新情報を引き続き受け取るには確認が必要です
mail-moved-intro = { $name } の以前のステータスページで、ステータス更新情報を購読されていました。現在、{ $name } はこちらで更新情報を掲載しています：
mail-moved-button = 購読を継続する
mail-moved-open = このメールアドレスで引き続き受け取るには、次のリンクから確認してください（有効期限は 48 時間です）：
mail-moved-valid = このリンクの有効期限は 48 時間です。確認されない場合、今後このページからメールが送信されることはありません。
mail-moved-ignore = 確認されない場合、今後このページからメールが送信されることはありません。

## 配信の失敗による Webhook の一時停止

mail-paused-subject = [{ $name }] 配信の失敗が続いたため、Webhook 通知を一時停止しました
mail-paused-title = Webhook 通知を一時停止しました
mail-paused-failed = Herald は { $name } のステータス通知をお客様の Webhook { $url } に配信しようとしましたが、{ $failures } 回連続で失敗しました。
mail-paused-fix = この Webhook への通知は一時停止されています。受信側の問題を修正してから、ステータスページで再度購読してください：{ $page }
mail-paused-manage = 購読の管理・解除

## The sign-in link a reader of a private page asked for

mail-reader-subject = { $name } にログイン
mail-reader-hello = こんにちは。
mail-reader-intro = { $name } のステータスページを閲覧するためのログイン用リンクをお送りします：
mail-reader-button = { $name } を閲覧する
mail-reader-once = このリンクは 1 回のみ、{ $minutes } 分間有効です。リンクを開くと、ログインの前に確認を求められます。これにより、リンクを自動で開くメールスキャナーによってリンクが使用済みになることを防いでいます。
mail-reader-why = このメールは、{ $name } で { $email } 宛てのログイン用リンクがリクエストされたためお送りしています。お心当たりがない場合は、このメールを無視してください。リンクがなければ何も起こりません。

## サポートフォームの送信者が希望した送信内容の控え

mail-copy-subject = [{ $name }] お問い合わせ { $reference } を受け付けました
mail-copy-hello = こんにちは。
mail-copy-received = サポートへのお問い合わせを受け付けました。参照番号は { $reference } です。
mail-copy-next = 今後の流れ：すべてのお問い合わせはサポートチームが確認し、このメールアドレス宛てに返信いたします。この件について再度ご連絡いただく際は、参照番号 { $reference } をお伝えください。
mail-copy-status = 障害が発生している間は、把握している情報をステータスページでお知らせしています：
mail-copy-topic = お問い合わせの種類：{ $topic }
mail-copy-affected = 問題が発生しているサービスの箇所：{ $component }
mail-copy-no-text = この控えには、フォームに入力された内容は記載していません。お問い合わせフォームには誰でも任意のメールアドレスを入力できるため、入力内容が第三者に届かないようにしています。
mail-copy-why = このメールは、{ $name } のお問い合わせフォームで控えの送信が希望されたためお送りしています。お心当たりがない場合は、このメールを無視してください。今後メールが送信されることはありません。
