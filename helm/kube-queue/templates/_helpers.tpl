{{/* Labels on every object: the generated manifests' plus Helm's own. */}}
{{- define "kube-queue.labels" -}}
app.kubernetes.io/name: kube-queue-controller
app.kubernetes.io/part-of: kube-queue
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "kube-queue.selectorLabels" -}}
app.kubernetes.io/name: kube-queue-controller
app.kubernetes.io/part-of: kube-queue
{{- end -}}

{{/* The job kinds switched off, as kube-queue.disabled-kinds wants them: comma-separated kind names. */}}
{{- define "kube-queue.disabledKinds" -}}
{{- $off := list -}}
{{- range $kind, $on := .Values.jobKinds -}}
{{- if not $on -}}{{- $off = append $off $kind -}}{{- end -}}
{{- end -}}
{{- join "," (sortAlpha $off) -}}
{{- end -}}

{{/* The controller's image: by digest when one is given, else by tag (default: the chart's appVersion). */}}
{{- define "kube-queue.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/* cert-manager's Certificate for the HTTPS port, its Secret, and where the Secret is mounted. */}}
{{- define "kube-queue.certificate" -}}kube-queue-serving{{- end -}}
{{- define "kube-queue.certificateSecret" -}}kube-queue-serving-cert{{- end -}}
{{- define "kube-queue.certificatePath" -}}/etc/kube-queue/serving-cert{{- end -}}

{{/* Whether kube-queue makes its own certificate and writes its CA into the APIService and the webhook configuration. */}}
{{- define "kube-queue.selfSigned" -}}
{{- if and .Values.serving.enabled (not .Values.serving.certManager.enabled) -}}true{{- end -}}
{{- end -}}

{{/* The annotation through which cert-manager's CA injector writes the caBundle, with cert-manager only. */}}
{{- define "kube-queue.injectCa" -}}
{{- if .Values.serving.certManager.enabled -}}
annotations:
  cert-manager.io/inject-ca-from: {{ printf "%s/%s" .Release.Namespace (include "kube-queue.certificate" .) | quote }}
{{- end -}}
{{- end -}}

{{/*
The namespaces whose job creates the webhook is sent, and where kube-queue suspends them: the names listed, or with
"*" every namespace a quota group lists, and the webhook called for every namespace but the cluster's own and
kube-queue's. A listed name of those is refused: suspending the cluster's own jobs could stop the cluster's add-ons.
*/}}
{{- define "kube-queue.suspendAtCreationIn" -}}
{{- if has "*" .Values.suspendAtCreation.namespaces -}}*{{- else -}}{{ join "," .Values.suspendAtCreation.namespaces }}{{- end -}}
{{- end -}}

{{- define "kube-queue.suspendAtCreationSelector" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      {{- if has "*" .Values.suspendAtCreation.namespaces }}
      operator: NotIn
      values: {{ list "kube-system" "kube-public" "kube-node-lease" .Release.Namespace | uniq | toJson }}
      {{- else }}
      operator: In
      values: {{ .Values.suspendAtCreation.namespaces | toJson }}
      {{- end }}
{{- end -}}

{{/* What both suspend-at-creation webhooks share: where they call, which namespaces, and their policies. */}}
{{- define "kube-queue.suspendAtCreationWebhook" -}}
clientConfig:
  service:
    name: kube-queue-controller
    namespace: {{ .Release.Namespace }}
    path: /webhooks/suspend-at-creation
    port: {{ .Values.serving.port }}
{{ include "kube-queue.suspendAtCreationSelector" . }}
admissionReviewVersions: ["v1"]
sideEffects: None
timeoutSeconds: {{ .Values.suspendAtCreation.timeoutSeconds }}
# Ignore: a job created while kube-queue is down runs unqueued (charged where chargeUnsuspendedIn lists its
# namespace); Fail: no job of those namespaces can be created while kube-queue is down
failurePolicy: {{ .Values.suspendAtCreation.failurePolicy }}
matchPolicy: Equivalent
reinvocationPolicy: Never
{{- end -}}
