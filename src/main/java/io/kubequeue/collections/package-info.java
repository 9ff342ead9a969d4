/** Small collection helpers with no Kubernetes imports, usable from every package, the scheduler core included. */
package io.kubequeue.collections;
