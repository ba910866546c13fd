/**
 * What a result says of the containment its code ran under (docs/security.md): the setting the
 * grader found on this machine, the layers in force and those that are not, each in words.
 */
export interface ContainmentReport {
  /**
   * namespaces: root, with namespaces of its own per child. own-uids: root without CAP_SYS_ADMIN
   * (Docker), a uid and a root folder of its own per child. user-namespaces: not root, namespaces
   * inside a user namespace of its own. same-user: not root, and no namespace allowed.
   */
  setting: 'namespaces' | 'own-uids' | 'user-namespaces' | 'same-user';
  in_force: string[];
  missing: string[];
}
